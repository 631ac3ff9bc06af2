#include "measure/span_reduction.hpp"

namespace overlap::measure {

Spans keep_spans(const std::vector<SpanStamp>& iterations) {
  Spans s;
  for (const SpanStamp& it : iterations) {
    const bool overran = it.window_end && it.max_end > *it.window_end;
    s.late += it.late ? 1 : 0;
    s.overrun += !it.late && overran ? 1 : 0;
    const bool keep = !it.late && !overran;
    s.kept.push_back(keep);
    if (!keep) continue;
    s.span.push_back(it.max_end - it.min_start);
    s.slowest.push_back(it.max_own);
  }
  return s;
}

}  // namespace overlap::measure
