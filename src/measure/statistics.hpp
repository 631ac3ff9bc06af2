// Plain statistics over samples of times. Pure functions; inputs are taken by value
// because selection reorders them.
#pragma once

#include <vector>

namespace overlap::measure {

// Linear-interpolated quantile, q in [0, 1]. Throws std::invalid_argument when empty.
double quantile(std::vector<double> values, double q);
double median(std::vector<double> values);
double mean(const std::vector<double>& values);  // throws std::invalid_argument when empty

// The median and the quartiles around it: how every time and ratio is reported.
struct Spread {
  double median = 0;
  double p25 = 0;
  double p75 = 0;
};
Spread spread(const std::vector<double>& values);  // throws std::invalid_argument when empty

}  // namespace overlap::measure
