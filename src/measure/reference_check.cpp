#include "measure/reference_check.hpp"

#include <cmath>
#include <cstdio>

#include "base/duration.hpp"

namespace overlap::measure {
namespace {

std::string percent(double fraction) { return std::to_string(std::lround(fraction * 100)) + " %"; }

std::string ratio(double r) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f", r);
  return buf;
}

void check_reference(const char* name, const Spread& s, double target, double tolerance,
                     double spread_bound, std::vector<std::string>& out) {
  if (target > 0 && std::abs(s.median - target) > tolerance * target) {
    out.push_back(std::string(name) + " " + format_duration(s.median) + " is " +
                  percent(std::abs(s.median - target) / target) +
                  (s.median > target ? " above" : " below") + " its " + format_duration(target) +
                  " target (tolerance " + percent(tolerance) + ")");
  }
  const double width = s.p75 - s.p25;
  if (s.median > 0 && width > spread_bound * s.median) {
    out.push_back(std::string(name) + " p25-p75 " + format_duration(s.p25) + " to " +
                  format_duration(s.p75) + " spans " + percent(width / s.median) +
                  " of its median " + format_duration(s.median) + " (bound " +
                  percent(spread_bound) + ")");
  }
}

}  // namespace

std::vector<std::string> reference_problems(const ReferenceTargets& targets,
                                            const Spread& t_comm_ref, const Spread& t_comp_ref,
                                            const Spread& r_overhead,
                                            const DiagnosisThresholds& th) {
  std::vector<std::string> out;
  check_reference("t_comm_ref", t_comm_ref, targets.comm_s, targets.tolerance, th.reference_spread,
                  out);
  check_reference("t_comp_ref", t_comp_ref, targets.comp_s, targets.tolerance, th.reference_spread,
                  out);
  const double width = r_overhead.p75 - r_overhead.p25;
  if (r_overhead.median < -th.tolerance || r_overhead.median + width < 0) {
    out.push_back("r_overhead " + ratio(r_overhead.median) + " (p25-p75 " + ratio(r_overhead.p25) +
                  " to " + ratio(r_overhead.p75) + ") is below 0 by more than " +
                  (r_overhead.median < -th.tolerance ? "the noise tolerance " + ratio(th.tolerance)
                                                     : std::string("its spread")) +
                  ": faster than perfect overlap");
  }
  return out;
}

}  // namespace overlap::measure
