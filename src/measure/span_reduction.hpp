// A collective's time per iteration from what the ranks agreed on (nbc-overlap paper,
// sec. 4.1; clock-sync paper, sec. 1.3): max end - min start over ranks in global time,
// with the iterations whose start was not common left out and counted. Used by `latency`
// (runs from the sync barrier) and `coll` (runs in windows, which can also overrun).
#pragma once

#include <optional>
#include <vector>

namespace overlap::measure {

// One iteration, already reduced over ranks.
struct SpanStamp {
  double min_start = 0;  // global
  double max_end = 0;    // global
  double max_own = 0;    // the largest end - start of one rank, its own clock
  bool late = false;     // a rank started late (left the barrier late, missed its window)
  std::optional<double> window_end;  // global; ending after it is an overrun
};

struct Spans {
  std::vector<double> span;     // max_end - min_start of each kept iteration
  std::vector<double> slowest;  // max_own of each kept iteration
  std::vector<bool> kept;       // per iteration
  int late = 0;
  int overrun = 0;
};

Spans keep_spans(const std::vector<SpanStamp>& iterations);

}  // namespace overlap::measure
