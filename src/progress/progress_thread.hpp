// The background thread of the `shared` and `dedicated` policies, and the rescue thread of
// `caller` where the MPI library offers no hook into its own calls. Idle (nothing in
// flight) it blocks on a condition variable and costs nothing. With work in flight:
//  - dedicated: bound to its own core, it polls continuously;
//  - shared: it sleeps between passes for as long as Backoff says, shortened by what the
//    steps in flight are expected to take (step_pacing.hpp), so the cores the
//    application computes on lose only a few microseconds per wake-up; with wake on
//    submit a submission ends the sleep at once, and the thread's timer slack is set from
//    BackoffConfig::timer_slack so the kernel does not stretch short sleeps. While the
//    scheduler is hurried (a thread blocked on its work, Scheduler::hurry) it passes
//    without sleeping: nobody computes then, and each pause would add to the wait;
//  - rescue: it only watches; when nobody has made a pass for `rescue_after`, it makes
//    passes (paced like shared) until some other thread makes one again.
// The thread is named "ovx-progress" (visible in top -H, /proc/PID/task/*/comm).
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <stop_token>
#include <string>
#include <thread>

#include "progress/progress_policy.hpp"
#include "progress/scheduler.hpp"

namespace overlap::progress {

struct ThreadStats {
  std::uint64_t passes = 0;
  std::uint64_t busy_passes = 0;  // passes that did work
  std::uint64_t sleeps = 0;
  std::uint64_t rescue_passes = 0;
  std::uint64_t woken_by_submit = 0;  // shared: pauses cut short by a submission
  std::uint64_t hurried_passes = 0;   // shared: passes made without pausing (hurried)
  std::uint64_t stood_down = 0;       // shared: wake-ups without a pass (the application passed)
};

// What the owner wants the thread to do besides passes.
struct ThreadHooks {
  // Called between passes, outside any MPI call (work that must not run inside an MPI
  // callback, such as freeing communicators, is done here).
  std::function<void()> safe_point;
  // Called once, the first time a rescue pass did work.
  std::function<void()> first_rescue;
};

class ProgressThread {
 public:
  // Starts the thread. For `dedicated`, binding happens before the constructor returns;
  // on failure the thread is not started and error() says why.
  ProgressThread(Scheduler& scheduler, const EngineConfig& config, ThreadHooks hooks = {});
  ~ProgressThread();  // stops and joins
  ProgressThread(const ProgressThread&) = delete;
  ProgressThread& operator=(const ProgressThread&) = delete;

  bool running() const { return thread_.joinable(); }
  const std::string& error() const { return error_; }
  int bound_core() const { return bound_core_; }
  ThreadStats stats() const;

 private:
  void run_dedicated(std::stop_token stop);
  void run_shared(std::stop_token stop, BackoffConfig backoff);
  void run_rescue(std::stop_token stop, const EngineConfig& config);
  // One pass with the bookkeeping every loop shares; returns its work.
  int pass();
  // Sleeps for `d` unless stopped first; false when stopped.
  bool pause(const std::stop_token& stop, std::chrono::microseconds d);
  // shared's pause (Scheduler::sleep_unless_submitted without a submission count): ends
  // early on a hurry() or a stop. False when stopped.
  bool pause_unless_hurried(const std::stop_token& stop, std::chrono::microseconds d);
  // shared's pause: also ends when something is submitted after the `seen`-th submission
  // (then the backoff starts over). False when stopped.
  bool pause_for_work(const std::stop_token& stop, std::chrono::microseconds d, std::uint64_t seen,
                      Backoff& backoff);

  Scheduler& scheduler_;
  ThreadHooks hooks_;
  std::string error_;
  int bound_core_ = -1;
  std::atomic<std::uint64_t> passes_{0}, busy_passes_{0}, sleeps_{0}, rescue_passes_{0},
      woken_by_submit_{0}, hurried_passes_{0}, stood_down_{0};
  std::mutex pause_mu_;
  std::condition_variable_any pause_cv_;
  std::jthread thread_;  // last: starts once the members it uses exist
};

}  // namespace overlap::progress
