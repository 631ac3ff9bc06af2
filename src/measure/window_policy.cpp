#include "measure/window_policy.hpp"

namespace overlap::measure {

WindowStep next_window_step(const WindowBatchOutcome& b, double window, bool fixed, bool last) {
  const int lost = b.late + b.overrun;
  const bool too_short = b.overrun > 0 || 4 * lost > b.windows;
  if (fixed || last || !too_short) return {false, window};
  return {true, 2 * window};
}

}  // namespace overlap::measure
