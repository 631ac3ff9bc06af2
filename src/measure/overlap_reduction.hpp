// From what every rank recorded in every iteration to one point's times and ratios
// (nbc-overlap paper, sec. 4.1 and Algorithm 1). Pure, so the reduction itself is tested
// with hand-made numbers (a swapped index here is what the known-answer tests catch).
//
// Per iteration:
//   t_comm_ref = max end - min start of the bare collective over ranks, global time
//   t_comp_ref = the slowest rank's bare computation
//   t_measured = max t4 - min t1 of the overlap run over ranks, global time
//   t_call, t_comp, t_wait: those of ONE rank, the pacing rank (largest t4 - t1 of its
//     own), so t_call + t_comp + t_wait is Algorithm 1 on one process; taking each
//     phase's maximum over ranks separately would add up phases no rank went through.
// An iteration in which any rank left one of its sync barriers late is discarded and
// counted: its ranks did not start together, so its times are not the method's.
// Over the kept iterations: medians with quartiles. Ratios are computed per iteration
// against the point's median reference times; their medians are the point's ratios (and
// equal the formulas applied to the medians, since each is monotone in its one
// per-iteration quantity). Each rank's means over the kept iterations are kept too, so a
// file can be recomputed from itself: OSU's and IMB's formulas on these times use them (the
// peers' own protocol is bench/nbc/peer_protocol), and so does the spread of the ranks'
// computation speed. Given the point's targets, the references are checked
// (reference_check.hpp): a problem makes the point `imprecise_reference`, with its numbers.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "measure/diagnosis.hpp"
#include "measure/reference_check.hpp"
#include "measure/statistics.hpp"

namespace overlap::measure {

// One rank, one iteration.
struct RankIteration {
  double comm_start = 0, comm_end = 0;        // bare collective, global time
  double comm_local = 0;                      // its local duration (the peers' pure time)
  double comp_ref = 0;                        // bare computation, local duration
  double t1 = 0, t4 = 0;                      // overlap run start and end, global time
  double t_call = 0, t_comp = 0, t_wait = 0;  // overlap run phases, local durations
  double t_test = 0;                          // inside MPI_Test calls, part of t_comp
  bool late = false;                          // left one of the iteration's barriers late
};

// A kept iteration as reduced over ranks.
struct IterationSample {
  double t_comm_ref = 0, t_comp_ref = 0, t_measured = 0;
  double t_call = 0, t_comp = 0, t_wait = 0, t_test = 0;
  int pacing_rank = 0;
  // The slowest rank's t_comp: r_comp_slowdown compares it with t_comp_ref (also the
  // slowest rank's), so both sides of the ratio are chosen the same way. The pacing rank's
  // own t_comp is biased low: where nothing progresses, the rank that waited longest is
  // usually the one whose computation was quickest.
  double t_comp_max = 0;
};

// One rank's means over the kept iterations, local durations.
struct RankMeans {
  double overall = 0;   // t4 - t1
  double call = 0;      // t2 - t1
  double compute = 0;   // t3 - t2, MPI_Test calls included
  double test = 0;      // inside MPI_Test calls
  double wait = 0;      // t4 - t3
  double pure = 0;      // the bare collective's local end - start
  double comp_ref = 0;  // the bare computation
};

struct OverlapPointStats {
  bool valid = false;
  std::string invalid_reason;  // one line when not valid
  int kept = 0;
  int discarded = 0;
  std::vector<IterationSample> samples;  // the kept iterations, in order
  Spread t_comm_ref, t_comp_ref, t_measured, t_call, t_comp, t_wait;
  Spread t_comp_max;  // the slowest rank's t_comp (r_comp_slowdown's numerator)
  Spread t_in_mpi;    // t_call + t_wait of the pacing rank
  Spread t_test;      // inside MPI_Test calls of the pacing rank
  Spread r_overhead, r_comm, r_comp_slowdown;
  double progressed = 0;         // median progressed_fraction
  double r_comp_loss = 0;        // median r_comp_loss
  std::vector<RankMeans> ranks;  // per rank, in rank order
  // OSU's and IMB's formulas (peer_overlap.hpp) on these iterations' per-rank means.
  std::optional<double> osu_on_nbc_times_pct, imb_on_nbc_times_pct;
  // The slowest rank's mean bare computation over the fastest's: how unequal the ranks'
  // computation speeds are at this size (the slowest sets t_comp_ref).
  double comp_speed_spread = 1;
  Diagnosis diagnosis = Diagnosis::invalid;
  Diagnosis ratio_diagnosis = Diagnosis::invalid;  // from the ratios alone, before the check
  std::vector<std::string> imprecise;              // reference_problems: why imprecise_reference
};

// `iterations[i][r]`: rank r in iteration i; every iteration has the same ranks. With
// `targets`, the references are checked against them.
OverlapPointStats reduce_overlap(const std::vector<std::vector<RankIteration>>& iterations,
                                 const DiagnosisThresholds& thresholds = {},
                                 const std::optional<ReferenceTargets>& targets = std::nullopt);

}  // namespace overlap::measure
