// Plain statistics over samples of times. Pure functions; inputs are taken by value
// because selection reorders them.
#pragma once

#include <vector>

namespace overlap::measure {

// Linear-interpolated quantile, q in [0, 1]. Throws std::invalid_argument when empty.
double quantile(std::vector<double> values, double q);
double median(std::vector<double> values);

}  // namespace overlap::measure
