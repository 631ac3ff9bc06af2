// What a sync pass leaves on one edge of the schedule (a server and its client), and the
// two maps fitted from those samples: a line through all passes (drift corrected) and an
// offset from the latest pass only (what a sync without drift correction would use).
#pragma once

#include <span>

#include "clock/linear_map.hpp"

namespace overlap::clock {

struct EdgeSample {
  TimePoint server_to_client;  // server's clock -> client's clock
  double rtt = 0;              // round trip of the min-RTT exchange, client clock
};

struct EdgeMaps {
  LinearMap drift;
  LinearMap offset_only;
};

// Needs at least one sample; one sample gives the same offset-only map twice. Points are
// weighted by 1/rtt^2: a sample's error is bounded by rtt/2, so one pass whose best
// exchange was poor (a descheduled rank, a busy link) cannot tilt the line much.
EdgeMaps fit_edge(std::span<const EdgeSample> samples);

}  // namespace overlap::clock
