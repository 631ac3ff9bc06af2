#include "progress/progress_engine.hpp"

#include <thread>

#include "progress/thread_placement.hpp"

namespace overlap::progress {

ProgressEngine::ProgressEngine(const EngineConfig& config) : config_(config) {
  if (!needs_thread(config.policy)) return;
  thread_ = std::make_unique<ProgressThread>(scheduler_, config);
  if (!thread_->error().empty()) {
    error_ = thread_->error();
    thread_.reset();
    return;
  }
  if (config.policy == ProgressPolicy::dedicated && config.exclusive_core) {
    std::string why = exclude_core_from_this_thread(thread_->bound_core());
    if (!why.empty()) {
      error_ = "the dedicated policy needs a core the computation does not use: " + why;
      thread_.reset();
    }
  }
}

ProgressEngine::~ProgressEngine() { thread_.reset(); }

void ProgressEngine::wait(const TaskGraph& graph) {
  int idle = 0;
  while (!graph.complete()) {
    if (scheduler_.progress() > 0) {
      idle = 0;
    } else if (++idle > 64) {
      // Someone else holds the pass, or the network is slow: let the other thread run
      // (on a shared core it may be the progress thread we are waiting for).
      std::this_thread::yield();
    }
  }
}

}  // namespace overlap::progress
