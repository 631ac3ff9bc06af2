#include "measure/global_time.hpp"

#include <algorithm>
#include <stdexcept>

namespace overlap::measure {

double collective_span(const std::vector<double>& starts, const std::vector<double>& ends) {
  if (starts.empty() || starts.size() != ends.size()) {
    throw std::invalid_argument("collective_span: need one start and one end per rank");
  }
  return *std::max_element(ends.begin(), ends.end()) -
         *std::min_element(starts.begin(), starts.end());
}

}  // namespace overlap::measure
