#include "progress/step_pacing.hpp"

#include <algorithm>

namespace overlap::progress {

std::int64_t LinkModel::step_ns(std::size_t bytes) const {
  if (!known()) return 0;
  const double s = latency_s + static_cast<double>(bytes) / bytes_per_s;
  return static_cast<std::int64_t>(std::min(s * 1e9, 3600e9));  // an hour at most
}

void StepOutlook::add(std::int64_t posted_ns, std::int64_t step_ns, std::int64_t now_ns) {
  if (step_ns <= 0) return;
  const std::int64_t due = posted_ns + step_ns;
  if (due <= now_ns) return;  // overdue: no longer a guide
  next_due_ns = std::min(next_due_ns, due);
  shortest_step_ns = std::min(shortest_step_ns, step_ns);
  last_due_ns = last_due_ns == kNoTime ? due : std::max(last_due_ns, due);
}

std::chrono::microseconds paced_pause(std::chrono::microseconds backoff, const StepOutlook& outlook,
                                      std::int64_t now_ns, const PacingConfig& config) {
  using std::chrono::microseconds;
  if (config.pauses_per_step <= 0 || outlook.empty() || outlook.last_due_ns <= now_ns)
    return backoff;
  std::int64_t pause_ns = backoff.count() * 1000;
  // While a step runs within its expected time: a few passes per step.
  const std::int64_t paced = outlook.shortest_step_ns / config.pauses_per_step;
  pause_ns = std::min(pause_ns, std::max(paced, std::int64_t{config.min_pause.count()} * 1000));
  // Never past the earliest expected completion; poll when it is closer than a sleep.
  if (outlook.next_due_ns > now_ns) {
    const std::int64_t until = outlook.next_due_ns - now_ns;
    if (until <= config.poll_below.count() * 1000) return microseconds{0};
    pause_ns = std::min(pause_ns, until);
  }
  // Rounded up: a pause that ends before the completion only costs another pause.
  return microseconds{(pause_ns + 999) / 1000};
}

std::int64_t monotonic_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

}  // namespace overlap::progress
