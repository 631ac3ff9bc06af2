#include "progress/backoff.hpp"

#include <algorithm>

namespace overlap::progress {

std::chrono::microseconds Backoff::next(int work) {
  if (work > 0) {
    sleep_ = config_.min_sleep;
  } else {
    sleep_ = std::min(config_.max_sleep, std::max(sleep_ * 2, std::chrono::microseconds{1}));
  }
  return sleep_;
}

}  // namespace overlap::progress
