// What `overlap-bench nbc` records: its configuration and one record per grid point, each
// with the schema that names its fields (docs/result-format.md is generated from it).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "base/record_schema.hpp"
#include "bench/common/collective.hpp"
#include "bench/common/cpu_record.hpp"
#include "bench/common/implementation.hpp"
#include "bench/common/result_kind.hpp"
#include "bench/nbc/peer_record.hpp"
#include "measure/diagnosis.hpp"
#include "measure/statistics.hpp"

namespace overlap::bench {

// 3: cpu, decomposition; 4: its rates (issue 13); 5: t_comp_max, r_comp_slowdown of the
// slowest rank against the slowest rank's reference; 6 (issue 24): osu/imb_overlap_pct from
// the peers' own protocols (peers), the formulas on nbc's times renamed
// osu/imb_on_nbc_times_pct, per-rank means (ranks), comp_speed_spread, imprecise and
// ratio_diagnosis, calibrated_comm_s/comp_s and calibration_note, config.peer_iterations;
// 7 (issue 28): algorithm
inline constexpr int kNbcSchemaVersion = 7;

struct NbcConfig {
  std::vector<Implementation> impls{Implementation::mpi};  // compared point by point
  ProgressPolicy progress = ProgressPolicy::automatic;     // liboverlap's policy
  std::vector<Collective> ops;
  std::vector<double> comm_times_s;
  std::vector<double> comp_times_s;
  int iterations = 15;
  int warmup = 2;
  int calibration_runs = 5;  // median of this many runs per calibration step
  double tolerance = 0.1;
  double max_bytes = 1024.0 * 1024 * 1024;  // per rank, send + receive buffers
  std::optional<long> test_interval_bytes;  // MPI_Test every this many bytes (none: no test)
  int patience = 100;                       // clock sync min-RTT stop rule
  double sync_span_s = 1.0;                 // between the two initial sync passes
  int peer_iterations = 10;                 // the peers' protocols per point; 0: not run
};
const Schema<NbcConfig>& nbc_config_schema();

// One grid point: the kept iterations as reduced over ranks (measure/overlap_reduction).
struct NbcSamples {
  std::vector<double> t_comm_ref_s, t_comp_ref_s, t_measured_s, t_call_s, t_comp_s, t_wait_s,
      t_comp_max_s;
  std::vector<int> pacing_rank;
};
const Schema<NbcSamples>& nbc_samples_schema();

// One rank's means over the point's kept iterations (measure::RankMeans), local durations:
// with them every number of the point can be recomputed from the file.
struct NbcRankMeans {
  double overall_s = 0, call_s = 0, compute_s = 0, test_s = 0, wait_s = 0, pure_s = 0,
         comp_ref_s = 0;
};
const Schema<NbcRankMeans>& nbc_rank_means_schema();

struct NbcPoint {
  Implementation impl = Implementation::mpi;
  Collective op = Collective::bcast;
  double target_comm_s = 0;
  double target_comp_s = 0;
  bool valid = false;
  std::string invalid_reason;
  std::optional<long> msg_bytes;
  std::string algorithm;  // liboverlap's at msg_bytes (OVX_Algorithm); empty for MPI's own
  std::optional<long> comp_size;
  // What the calibrations measured at the sizes used; a note when a size is the nearest
  // reachable rather than within the tolerance (a step in time), saying why.
  std::optional<double> calibrated_comm_s, calibrated_comp_s;
  std::string calibration_note;
  int iterations = 0;  // kept
  int discarded = 0;   // left out: a rank left a sync barrier late
  int test_calls = 0;  // MPI_Test calls per overlap run (0 without --test-interval)
  std::optional<measure::Spread> t_comm_ref, t_comp_ref, t_measured, t_call, t_comp, t_wait,
      t_in_mpi, t_test, t_comp_max;
  std::optional<measure::Spread> r_overhead, r_comm, r_comp_slowdown;
  std::optional<double> osu_overlap_pct, imb_overlap_pct;            // the peers' own protocols
  std::optional<double> osu_on_nbc_times_pct, imb_on_nbc_times_pct;  // their formulas on ours
  std::optional<double> comp_speed_spread;  // slowest rank's mean comp_ref / fastest's
  measure::Diagnosis diagnosis = measure::Diagnosis::invalid;
  measure::Diagnosis ratio_diagnosis = measure::Diagnosis::invalid;  // before the check
  std::vector<std::string> imprecise;  // why imprecise_reference, with the numbers
  std::string diagnosis_text;
  std::optional<NbcSamples> samples;
  std::vector<NbcRankMeans> ranks;
  std::optional<PeerPhase> peers;
  std::optional<CpuAccounting> cpu;        // docs/cpu-accounting.md
  std::optional<CpuShares> decomposition;  // of the computation's slowdown
  std::map<std::string, std::string> null_reasons;
  double calibration_s = 0;
  double elapsed_s = 0;

  // Same grid point (targets come from the same text in a run and its resume: compared
  // with a little slack).
  bool same_key(const NbcPoint& other) const;
};
const Schema<NbcPoint>& nbc_point_schema();

inline const ResultKind<NbcConfig, NbcPoint> kNbcResult{
    "nbc",
    kNbcSchemaVersion,
    nbc_config_schema,
    nbc_point_schema,
    {{"impl", "impl", 8},
     {"op", "op", 22},
     {"target_comm_s", "comm", 9},
     {"target_comp_s", "comp", 9},
     {"msg_bytes", "msg", 10},
     {"comp_size", "n", 6},
     {"t_comm_ref_s", "t_comm", 10},
     {"t_comp_ref_s", "t_comp", 10},
     {"t_measured_s", "t_meas", 10},
     {"r_overhead", "r_ovh", 7},
     {"r_comm", "r_comm", 7},
     {"r_comp_slowdown", "r_slow", 7},
     {"osu_overlap_pct", "OSU", 6},
     {"imb_overlap_pct", "IMB", 6},
     {"discarded", "late", 5},
     {"diagnosis", "diagnosis", 0}},
    4,
    "one grid point: (impl, op, target communication time, target computation time)"};

}  // namespace overlap::bench
