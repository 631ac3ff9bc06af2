#include "measure/overlap_metrics.hpp"

#include <algorithm>

namespace overlap::measure {

std::optional<double> r_overhead(const OverlapTimes& t) {
  const double lo = std::min(t.t_comp_ref, t.t_comm_ref);
  const double hi = std::max(t.t_comp_ref, t.t_comm_ref);
  if (!(lo > 0)) return std::nullopt;
  return (t.t_measured - hi) / lo;
}

std::optional<double> r_comm(const OverlapTimes& t) {
  if (!(t.t_comm_ref > 0)) return std::nullopt;
  return (t.t_call + t.t_wait) / t.t_comm_ref;
}

std::optional<double> r_comp_slowdown(const OverlapTimes& t) {
  if (!(t.t_comp_ref > 0)) return std::nullopt;
  return t.t_comp / t.t_comp_ref;
}

std::optional<double> progressed_fraction(const OverlapTimes& t) {
  const double lo = std::min(t.t_comp_ref, t.t_comm_ref);
  if (!(lo > 0)) return std::nullopt;
  return (t.t_comm_ref - t.t_call - t.t_wait) / lo;
}

std::optional<double> osu_overlap_pct(const std::vector<RankDurations>& ranks) {
  if (ranks.empty()) return std::nullopt;
  double overall = 0, compute = 0, pure = 0;
  for (const RankDurations& r : ranks) {
    overall += r.overall;
    compute += r.compute;
    pure += r.pure_comm;
  }
  const double n = static_cast<double>(ranks.size());
  if (!(pure / n > 0)) return std::nullopt;
  return std::max(0.0, 100.0 - 100.0 * (overall / n - compute / n) / (pure / n));
}

std::optional<double> imb_overlap_pct(const std::vector<RankDurations>& ranks) {
  if (ranks.empty()) return std::nullopt;
  double ovrl = 0, pure = 0, cpu = 0;
  for (const RankDurations& r : ranks) {
    ovrl = std::max(ovrl, r.overall);
    pure = std::max(pure, r.pure_comm);
    cpu = std::max(cpu, r.cpu_ref);
  }
  const double lo = std::min(pure, cpu);
  if (!(lo > 0)) return std::nullopt;
  return 100.0 * std::clamp((pure + cpu - ovrl) / lo, 0.0, 1.0);
}

Diagnosis diagnose(const OverlapTimes& t, const DiagnosisThresholds& th) {
  const auto overhead = r_overhead(t);
  const auto comm = r_comm(t);
  const auto slowdown = r_comp_slowdown(t);
  const auto progressed = progressed_fraction(t);
  if (!overhead || !comm || !slowdown || !progressed) return Diagnosis::invalid;
  if (*overhead <= th.tolerance) return Diagnosis::overlap;
  const bool comp_slowed = *slowdown > 1.0 + th.tolerance;
  const bool moved = *progressed >= th.progressed;
  if (comp_slowed) {
    return moved ? Diagnosis::computation_slowdown : Diagnosis::contention_without_overlap;
  }
  return moved ? Diagnosis::partial_overlap : Diagnosis::no_progression;
}

std::string_view to_string(Diagnosis d) {
  switch (d) {
    case Diagnosis::overlap:
      return "overlap";
    case Diagnosis::partial_overlap:
      return "partial_overlap";
    case Diagnosis::no_progression:
      return "no_progression";
    case Diagnosis::computation_slowdown:
      return "computation_slowdown";
    case Diagnosis::contention_without_overlap:
      return "contention_without_overlap";
    case Diagnosis::invalid:
      return "invalid";
  }
  return "invalid";
}

std::string_view explain(Diagnosis d) {
  switch (d) {
    case Diagnosis::overlap:
      return "Communication is hidden behind the computation (r_overhead near 0).";
    case Diagnosis::partial_overlap:
      return "Communication progressed during the computation, which was not slowed, but "
             "some of it still costs time inside MPI calls.";
    case Diagnosis::no_progression:
      return "Nothing progressed while computing: the collective ran inside MPI calls "
             "(r_comm near or above 1, computation not slowed), as if serialised.";
    case Diagnosis::computation_slowdown:
      return "Communication progressed in the background but slowed the computation "
             "(r_comp_slowdown above 1), eating the gain.";
    case Diagnosis::contention_without_overlap:
      return "The computation was slowed and the collective still ran inside MPI calls: "
             "contention without overlap (e.g. a progress thread competing for cores).";
    case Diagnosis::invalid:
      return "Invalid measurement: see the reason.";
  }
  return "";
}

}  // namespace overlap::measure
