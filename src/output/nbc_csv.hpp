// CSV form of `nbc` points: one row per point, the same columns and order as a point in
// the JSON file (so the two can never disagree); null is an empty cell.
#pragma once

#include <string>
#include <vector>

#include "bench/nbc_bench.hpp"

namespace overlap::output {

std::string nbc_csv(const std::vector<bench::NbcPointRecord>& points);

}  // namespace overlap::output
