// Whether a point's reference times can carry its ratios (docs/nbc-benchmark.md, "Imprecise
// references"). The ratios use the measured references, never the targets, so an off-target
// reference does not make a ratio wrong; it makes the point sit elsewhere in the grid than
// its label says, and a noisy reference makes every ratio follow the noise. Either way the
// point is flagged `imprecise_reference` with the numbers, never shown as a plain result.
// Pure: tested with made-up spreads (tests/measure/reference_check_test.cpp) and through the
// reduction with a fake clock.
#pragma once

#include <string>
#include <vector>

#include "measure/diagnosis.hpp"
#include "measure/statistics.hpp"

namespace overlap::measure {

// The grid point's targets and the calibration's tolerance.
struct ReferenceTargets {
  double comm_s = 0;
  double comp_s = 0;
  double tolerance = 0.1;
};

// One line per problem, each with its numbers; empty when the references are fine:
//   - t_comm_ref or t_comp_ref (medians) outside tolerance × target of their target;
//   - t_comm_ref or t_comp_ref with p75 - p25 above thresholds.reference_spread × median;
//   - r_overhead below -thresholds.tolerance, or below 0 by more than its p25-p75 spread
//     (median + (p75 - p25) < 0): faster than perfect overlap beyond the noise.
std::vector<std::string> reference_problems(const ReferenceTargets& targets,
                                            const Spread& t_comm_ref, const Spread& t_comp_ref,
                                            const Spread& r_overhead,
                                            const DiagnosisThresholds& thresholds = {});

}  // namespace overlap::measure
