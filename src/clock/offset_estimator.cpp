#include "clock/offset_estimator.hpp"

#include <limits>

namespace overlap::clock {

OffsetEstimate estimate_offset(PingPongChannel& channel, const EstimatorConfig& config) {
  OffsetEstimate result;
  double best_rtt = std::numeric_limits<double>::infinity();
  int since_improvement = 0;
  while (since_improvement < config.patience) {
    if (result.exchanges >= config.max_exchanges) {
      result.hit_limit = true;
      break;
    }
    const Exchange e = channel.exchange();
    ++result.exchanges;
    if (e.rtt() < best_rtt) {
      best_rtt = e.rtt();
      result.best = e;
      since_improvement = 0;
    } else {
      ++since_improvement;
    }
  }
  return result;
}

}  // namespace overlap::clock
