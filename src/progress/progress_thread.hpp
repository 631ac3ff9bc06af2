// The background thread of the `shared` and `dedicated` policies. Idle (nothing in
// flight) it blocks on a condition variable and costs nothing. With work in flight:
//  - dedicated: bound to its own core, it polls continuously;
//  - shared: it sleeps between passes for as long as Backoff says, so the cores the
//    application computes on lose only a few microseconds per wake-up.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>
#include <thread>

#include "progress/progress_policy.hpp"
#include "progress/scheduler.hpp"

namespace overlap::progress {

struct ThreadStats {
  std::uint64_t passes = 0;
  std::uint64_t busy_passes = 0;  // passes that did work
  std::uint64_t sleeps = 0;
};

class ProgressThread {
 public:
  // Starts the thread. For `dedicated`, binding happens before the constructor returns;
  // on failure the thread is not started and error() says why.
  ProgressThread(Scheduler& scheduler, const EngineConfig& config);
  ~ProgressThread();
  ProgressThread(const ProgressThread&) = delete;
  ProgressThread& operator=(const ProgressThread&) = delete;

  bool running() const { return thread_.joinable(); }
  const std::string& error() const { return error_; }
  int bound_core() const { return bound_core_; }
  ThreadStats stats() const;

 private:
  void run_dedicated();
  void run_shared(BackoffConfig backoff);

  Scheduler& scheduler_;
  std::thread thread_;
  std::string error_;
  int bound_core_ = -1;
  std::atomic<std::uint64_t> passes_{0}, busy_passes_{0}, sleeps_{0};
};

}  // namespace overlap::progress
