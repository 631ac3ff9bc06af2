// `overlap-bench part --pattern sweep3d|halo3d`: one point (size, partitions) for every
// implementation in turn, every rank exchanging faces with its grid neighbours
// (part_exchange.hpp), its threads computing as in the p2p pattern. Rank 0's points carry
// the time per iteration, the overhead against `single`, sweep3d's early-bird share and
// the data check's verdict (docs/part-benchmark.md, "Patterns").
#pragma once

#include <random>
#include <vector>

#include "bench/common/global_clock.hpp"
#include "bench/part/part_record.hpp"
#include "compute/cache_flush.hpp"

namespace overlap::bench {

std::vector<PartPoint> measure_pattern(GlobalClock& clock, const PartConfig& config,
                                       compute::CacheFlusher& flusher, std::mt19937_64& rng,
                                       const PartPoint& key);

}  // namespace overlap::bench
