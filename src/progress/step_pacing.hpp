// What a `shared` progress thread expects of the steps in flight, and the pause it takes
// from that (issue 28, item 2). Each send and receive a graph posts has an expected time
// from the cost model's link (latency + bytes / bandwidth). After a pass the scheduler sums
// up the steps still within their expected time (StepOutlook); the thread then shortens
// the pause Backoff gave it:
//  - it never sleeps past the earliest expected completion, so the next step of a schedule
//    is posted when the previous one should be done, not up to 500 µs later; closer than
//    `poll_below` it passes again at once (a sleep costs more than that);
//  - while a step is within its expected time, the pause is at most that time divided by
//    `pauses_per_step`: the MPI library's own protocol inside one step (a rendezvous
//    handshake, a socket to refill) needs passes too, at intervals that scale with the
//    step, not with the backoff's ceiling.
// A step past its expected time (a late peer, a model that is wrong) no longer counts:
// the pauses back off as before. Pure; unit-tested in tests/progress/step_pacing_test.cpp.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>

namespace overlap::progress {

// The link the cost model measured (or its defaults); unknown (0) turns the pacing off.
struct LinkModel {
  double latency_s = 0;
  double bytes_per_s = 0;
  bool known() const { return latency_s > 0 && bytes_per_s > 0; }
  // Expected time of one message of `bytes`, in nanoseconds (0 when unknown).
  std::int64_t step_ns(std::size_t bytes) const;
};

inline constexpr std::int64_t kNoTime = INT64_MAX;

// The running steps that are still within their expected time, as of one pass.
struct StepOutlook {
  std::int64_t next_due_ns = kNoTime;       // the earliest expected completion
  std::int64_t shortest_step_ns = kNoTime;  // the shortest expected time among them
  std::int64_t last_due_ns = kNoTime;       // the latest expected completion among them
  bool empty() const { return next_due_ns == kNoTime; }
  // Adds a step posted at `posted_ns` expected to take `step_ns`, if it is not yet due at
  // `now_ns`.
  void add(std::int64_t posted_ns, std::int64_t step_ns, std::int64_t now_ns);
};

struct PacingConfig {
  int pauses_per_step = 16;                 // 0: no pacing by steps (the backoff alone)
  std::chrono::microseconds min_pause{20};  // a pause is never shortened below this...
  std::chrono::microseconds poll_below{5};  // ...unless a completion is due within this: 0
};

// The pause after a pass: `backoff` (Backoff::next) shortened by what `outlook` expects,
// at time `now_ns`. 0 means pass again without pausing.
std::chrono::microseconds paced_pause(std::chrono::microseconds backoff, const StepOutlook& outlook,
                                      std::int64_t now_ns, const PacingConfig& config);

// CLOCK_MONOTONIC in nanoseconds (steady_clock), the clock posted_ns is on.
std::int64_t monotonic_ns();

}  // namespace overlap::progress
