// The time of a collective over several ranks (nbc-overlap paper, sec. 4.1): from the
// first rank's entry to the last rank's completion, both in global time. The slowest
// rank sets the pace of a bulk-synchronous code, so neither a mean nor rank 0's view.
#pragma once

#include <vector>

namespace overlap::measure {

// max(ends) - min(starts). Throws std::invalid_argument when empty or sizes differ.
double collective_span(const std::vector<double>& starts, const std::vector<double>& ends);

}  // namespace overlap::measure
