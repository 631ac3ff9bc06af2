// A word a thread sleeps on for a bounded time and any thread, even inside a signal
// handler, can ring. ring() is an atomic increment, and a futex wake only when a thread
// sleeps (so ringing often is cheap); both are async-signal-safe, where a condition
// variable's notify is not: the interception layer's fault handler rings it when the
// program blocks on a deferred transfer (Scheduler::hurry).
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>

namespace overlap::progress {

class Doorbell {
 public:
  // Rings so far: note it before checking whatever a ring announces, then wait(seen, d).
  std::uint32_t rings() const { return rings_.load(std::memory_order_acquire); }
  // Sleeps until a ring after the `seen`-th, or until `d` passed. May return early.
  void wait(std::uint32_t seen, std::chrono::microseconds d);
  // Async-signal-safe.
  void ring() noexcept;

 private:
  std::atomic<std::uint32_t> rings_{0};
  std::atomic<int> sleepers_{0};
};

}  // namespace overlap::progress
