// The progress engine: owns the scheduler and, for the thread policies, the progress
// thread. Pure C++ (no MPI): the MPI bridge (generalized requests, MPI hooks) sits on
// top, so the engine is testable over the fake network and under ThreadSanitizer.
#pragma once

#include <memory>
#include <string>

#include "progress/progress_policy.hpp"
#include "progress/progress_thread.hpp"
#include "progress/scheduler.hpp"
#include "progress/task_graph.hpp"

namespace overlap::progress {

class ProgressEngine {
 public:
  // Starts the thread the policy needs. Check error() afterwards: a dedicated thread
  // that could not be bound leaves the engine unusable.
  explicit ProgressEngine(const EngineConfig& config);
  ~ProgressEngine();
  ProgressEngine(const ProgressEngine&) = delete;
  ProgressEngine& operator=(const ProgressEngine&) = delete;

  const std::string& error() const { return error_; }
  ProgressPolicy policy() const { return config_.policy; }
  const EngineConfig& config() const { return config_; }
  int bound_core() const { return thread_ ? thread_->bound_core() : -1; }
  ThreadStats thread_stats() const { return thread_ ? thread_->stats() : ThreadStats{}; }

  void submit(std::shared_ptr<TaskGraph> graph) { scheduler_.submit(std::move(graph)); }
  // One collaborative pass from the calling thread.
  int progress() { return scheduler_.progress(); }
  // Progresses (everything) until `graph` completes.
  void wait(const TaskGraph& graph);
  std::size_t in_flight() const { return scheduler_.in_flight(); }

 private:
  EngineConfig config_;
  Scheduler scheduler_;
  std::unique_ptr<ProgressThread> thread_;
  std::string error_;
};

}  // namespace overlap::progress
