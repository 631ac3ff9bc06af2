// How long the `shared` progress thread sleeps between passes, steered by what the last
// pass achieved: right after useful work it looks again soon (the next message of a
// collective usually follows quickly); each idle pass doubles the pause up to a ceiling,
// so a long transfer costs a few wake-ups per millisecond, not a busy core.
#pragma once

#include <chrono>

namespace overlap::progress {

struct BackoffConfig {
  std::chrono::microseconds min_sleep{20};
  std::chrono::microseconds max_sleep{500};
};

class Backoff {
 public:
  explicit Backoff(BackoffConfig config = {}) : config_(config), sleep_(config.min_sleep) {}
  // The pause to take after a pass that did `work`.
  std::chrono::microseconds next(int work);
  // Back to the shortest pause (e.g. when new work was submitted).
  void reset() { sleep_ = config_.min_sleep; }
  const BackoffConfig& config() const { return config_; }

 private:
  BackoffConfig config_;
  std::chrono::microseconds sleep_;
};

}  // namespace overlap::progress
