// Turns per-edge clock maps (each rank's clock -> its parent's clock) into each rank's
// map to rank 0's clock by composing along the parent chain. Lines compose exactly, so
// a drift measured on each edge survives composition, unlike scalar offsets measured at
// different instants.
#pragma once

#include <vector>

#include "clock/linear_map.hpp"

namespace overlap::clock {

// edge[r] maps rank r's clock to parent[r]'s clock; edge[0] is ignored (rank 0 is the
// root, parent[0] = -1). Returns to_root[r]: rank r's clock -> rank 0's clock.
std::vector<LinearMap> compose_to_root(const std::vector<int>& parent,
                                       const std::vector<LinearMap>& edge);

}  // namespace overlap::clock
