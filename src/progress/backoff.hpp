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
  // The progress thread's timer slack (prctl PR_SET_TIMERSLACK); 0: the kernel's default.
  std::chrono::nanoseconds timer_slack{0};
  // A submission ends the current pause at once. Off by default until measured on a
  // quiet machine (docs/liboverlap.md, "Engine changes of issue 13").
  bool wake_on_submit = false;
  // No pass while the application passes itself (ProgressThread::run_shared).
  bool stand_down = true;
  // Pauses per expected step time while a step is within it (step_pacing.hpp); 0: off.
  int pauses_per_step = 16;
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
