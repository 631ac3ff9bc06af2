// Two-rank clock offset by the min-RTT rule: keep the exchange with the smallest round
// trip, stop once that minimum has not improved for `patience` consecutive exchanges.
// The smallest round trip bounds the asymmetry error best (clock-sync paper, sec. 3.1).
#pragma once

#include <cstdint>

#include "clock/linear_map.hpp"
#include "clock/ping_pong.hpp"

namespace overlap::clock {

struct EstimatorConfig {
  int patience = 100;                      // N of the stop rule
  std::int64_t max_exchanges = 1'000'000;  // hard bound so a pathological link still ends
};

struct OffsetEstimate {
  Exchange best;               // the min-RTT exchange
  std::int64_t exchanges = 0;  // how many were made
  bool hit_limit = false;      // stopped by max_exchanges, not by the rule

  // Server time t2 happened at the client's midpoint: a point on the map server->client.
  TimePoint server_to_client() const { return {best.t2, best.client_midpoint()}; }
};

OffsetEstimate estimate_offset(PingPongChannel& channel, const EstimatorConfig& config);

}  // namespace overlap::clock
