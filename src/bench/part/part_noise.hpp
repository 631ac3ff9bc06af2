// `overlap-bench part`: each thread's computation time in one iteration under the noise
// model asked for (partitioned-benchmark paper, sec. 3.3; docs/part-benchmark.md).
#pragma once

#include <random>
#include <vector>

#include "bench/part/part_record.hpp"

namespace overlap::bench {

std::vector<double> draw_compute(const PartConfig& c, int parts, std::mt19937_64& rng);

}  // namespace overlap::bench
