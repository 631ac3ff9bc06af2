#include "measure/overlap_metrics.hpp"

#include <algorithm>

namespace overlap::measure {
namespace {

double shorter(const OverlapTimes& t) { return std::min(t.t_comp_ref, t.t_comm_ref); }

}  // namespace

std::optional<double> r_overhead(const OverlapTimes& t) {
  const double lo = shorter(t);
  if (!(lo > 0)) return std::nullopt;
  return (t.t_measured - std::max(t.t_comp_ref, t.t_comm_ref)) / lo;
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
  const double lo = shorter(t);
  if (!(lo > 0)) return std::nullopt;
  return (t.t_comm_ref - t.t_call - t.t_wait) / lo;
}

std::optional<double> r_comp_loss(const OverlapTimes& t) {
  const double lo = shorter(t);
  if (!(lo > 0)) return std::nullopt;
  return (t.t_comp - t.t_comp_ref) / lo;
}

std::optional<OverlapRatios> overlap_ratios(const OverlapTimes& t) {
  const auto overhead = r_overhead(t);
  const auto comm = r_comm(t);
  const auto slowdown = r_comp_slowdown(t);
  const auto progressed = progressed_fraction(t);
  const auto loss = r_comp_loss(t);
  if (!overhead || !comm || !slowdown || !progressed || !loss) return std::nullopt;
  return OverlapRatios{*overhead, *comm, *slowdown, *progressed, *loss};
}

}  // namespace overlap::measure
