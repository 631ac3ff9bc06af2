// The progress engine: owns the scheduler and, for the thread policies, the progress
// thread. Pure C++ (no MPI): the MPI bridge (generalized requests, MPI hooks, the process's
// engine in engine_runtime) sits on top, so the engine is testable over the fake network
// and under ThreadSanitizer.
//
// The scheduler outlives stop()/start(): the process's engine is one object for the whole
// run, restarted with another policy if the application asks, so a request never refers
// to an engine that is gone.
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "progress/progress_policy.hpp"
#include "progress/progress_thread.hpp"
#include "progress/scheduler.hpp"
#include "progress/task_graph.hpp"

namespace overlap::progress {

class ProgressEngine {
 public:
  ProgressEngine() = default;  // stopped
  // Starts right away; check error() afterwards.
  explicit ProgressEngine(const EngineConfig& config) { error_ = start(config); }
  ~ProgressEngine() { stop(); }
  ProgressEngine(const ProgressEngine&) = delete;
  ProgressEngine& operator=(const ProgressEngine&) = delete;

  // Starts the thread the configuration needs. Returns "" or why it could not (a
  // dedicated thread that could not be bound), in which case the engine stays stopped.
  std::string start(const EngineConfig& config, ThreadHooks hooks = {});
  // Stops and joins the thread, if any. Whatever is in flight stays in the scheduler.
  void stop();
  bool running() const { return running_; }

  const std::string& error() const { return error_; }
  ProgressPolicy policy() const { return config_.policy; }
  const EngineConfig& config() const { return config_; }
  int bound_core() const { return thread_ ? thread_->bound_core() : -1; }
  ThreadStats thread_stats() const { return thread_ ? thread_->stats() : ThreadStats{}; }

  Scheduler& scheduler() { return scheduler_; }
  void submit(std::shared_ptr<TaskGraph> graph) { scheduler_.submit(std::move(graph)); }
  // One collaborative pass from the calling thread.
  int progress() { return scheduler_.progress(); }
  int progress_in_call() { return scheduler_.progress_in_call(); }
  // Progresses (everything) until `graph` completes.
  void wait(const TaskGraph& graph) {
    wait_until([&graph] { return graph.complete(); });
  }
  // Progresses (everything) until `done()` is true.
  void wait_until(const std::function<bool()>& done);
  std::size_t in_flight() const { return scheduler_.in_flight(); }
  std::uint64_t passes() const { return scheduler_.passes(); }

 private:
  EngineConfig config_;
  Scheduler scheduler_;
  std::unique_ptr<ProgressThread> thread_;
  std::string error_;
  bool running_ = false;
};

}  // namespace overlap::progress
