#include "measure/diagnosis.hpp"

namespace overlap::measure {

Diagnosis diagnose(const std::optional<OverlapRatios>& ratios, const DiagnosisThresholds& th) {
  if (!ratios) return Diagnosis::invalid;
  const OverlapRatios& r = *ratios;
  const double tol = th.tolerance;
  // Faster than perfect overlap by more than the noise: the references are off, and
  // calling it overlap would credit the library with a measurement error.
  if (r.r_overhead < -tol) return Diagnosis::imprecise_reference;
  if (r.r_overhead <= tol) return Diagnosis::overlap;
  // The computation's lost time is judged in r_overhead's unit (the time overlap could
  // save): 10 % of a 64 ms computation under a 4 ms collective costs more than the
  // collective itself, although r_comp_slowdown is only 1.10.
  const bool comp_slowed = r.r_comp_loss > tol;
  const bool progressed = r.progressed >= th.progressed;
  if (comp_slowed) {
    return progressed ? Diagnosis::computation_slowdown : Diagnosis::contention_without_overlap;
  }
  const bool comm_slowed = r.r_comm > 1 + tol;
  if (!progressed && !comm_slowed && r.r_overhead <= 1 + tol) return Diagnosis::no_progression;
  // Slower than serialised with the computation unhurt: the communication, as the ranks
  // saw it together, took longer than alone, whatever this rank's MPI calls show.
  if (comm_slowed || r.r_overhead > 1) return Diagnosis::communication_slowdown;
  return Diagnosis::partial_overlap;  // progressed, unhurt, r_overhead in (tol, 1]
}

std::string_view explain(Diagnosis d) {
  switch (d) {
    case Diagnosis::overlap:
      return "Communication is hidden behind the computation (r_overhead near 0).";
    case Diagnosis::partial_overlap:
      return "Part of the collective progressed during the computation, which was not "
             "slowed; the rest still cost time inside MPI calls.";
    case Diagnosis::no_progression:
      return "Nothing progressed while computing: the collective ran inside MPI calls "
             "(r_comm near 1, computation not slowed), as if serialised.";
    case Diagnosis::computation_slowdown:
      return "Communication progressed in the background but slowed the computation by "
             "more than the noise allows, eating the gain.";
    case Diagnosis::communication_slowdown:
      return "The collective got slower than alone (r_comm above 1 or the run slower than "
             "serialised) while the computation was not slowed.";
    case Diagnosis::contention_without_overlap:
      return "The computation was slowed and the collective still ran inside MPI calls: "
             "contention without overlap (e.g. a progress thread competing for cores).";
    case Diagnosis::imprecise_reference:
      return "A reference time is off its target or too noisy, or the run was faster than "
             "perfect overlap: the ratios say nothing reliable about overlap here.";
    case Diagnosis::invalid:
      return "Invalid measurement: see the reason.";
  }
  return "";
}

}  // namespace overlap::measure
