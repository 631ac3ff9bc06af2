#include "measure/window_policy.hpp"

namespace overlap::measure {

WindowStep next_window_step(const WindowBatchOutcome& b, double window, bool fixed, bool last) {
  const int lost = b.late + b.overrun;
  const bool too_short = b.overrun > 0 || 4 * lost > b.windows;
  if (fixed || last || !too_short) return {false, window};
  return {true, 2 * window};
}

void WindowTally::add(const WindowBatchOutcome& b, int on_time, bool restart) {
  windows += b.windows;
  kept += on_time;
  kept_late += b.late;
  kept_overrun += b.overrun;
  if (!restart) return;
  late += kept_late;
  overrun += kept_overrun;
  restarted += kept;
  kept = kept_late = kept_overrun = 0;
}

}  // namespace overlap::measure
