// The NBC overlap metrics of the nbc-overlap paper (sec. 3), as pure functions of one set
// of times (one iteration, or medians). A metric that cannot be computed is
// std::nullopt, never a made-up number. The peers' percentages are in peer_overlap.hpp,
// the diagnosis in diagnosis.hpp, the reduction over ranks and iterations in
// overlap_reduction.hpp.
#pragma once

#include <optional>

#include "measure/diagnosis.hpp"

namespace overlap::measure {

// Times of the overlap run (Algorithm 1) and the references (seconds). t_call, t_comp and
// t_wait belong to one rank (see overlap_reduction.hpp for which).
struct OverlapTimes {
  double t_comm_ref = 0;  // NBC + Wait alone
  double t_comp_ref = 0;  // computation alone
  double t_measured = 0;  // Icoll; compute; Wait
  double t_call = 0;      // the Icoll call in the overlap run
  double t_comp = 0;      // the computation in the overlap run
  double t_wait = 0;      // the Wait in the overlap run
};

// (t_measured - max(refs)) / min(refs): 0 perfect overlap, 1 serialised, > 1 worse than
// serialised, < 0 faster than ideal (imprecise references). nullopt if min(refs) <= 0.
std::optional<double> r_overhead(const OverlapTimes& t);
// (t_call + t_wait) / t_comm_ref: time spent inside MPI relative to the bare collective.
std::optional<double> r_comm(const OverlapTimes& t);
// t_comp / t_comp_ref: how much the communication slowed the computation.
std::optional<double> r_comp_slowdown(const OverlapTimes& t);
// Share of the communication that progressed during the computation, normalised by what
// could have progressed: (t_comm_ref - t_call - t_wait) / min(t_comm_ref, t_comp_ref).
// 1: all it could, 0: nothing (everything happened inside MPI calls). Unlike r_comm it
// does not read "no overlap" when the computation is simply shorter than the collective.
std::optional<double> progressed_fraction(const OverlapTimes& t);
// The computation's lost time in r_overhead's unit, the time overlap could save:
// (t_comp - t_comp_ref) / min(t_comm_ref, t_comp_ref). A slowdown that costs more than the
// communication could hide shows here even when r_comp_slowdown is close to 1.
std::optional<double> r_comp_loss(const OverlapTimes& t);

// All five, or nullopt when any is undefined.
std::optional<OverlapRatios> overlap_ratios(const OverlapTimes& t);

}  // namespace overlap::measure
