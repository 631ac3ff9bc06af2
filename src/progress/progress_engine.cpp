#include "progress/progress_engine.hpp"

#include <thread>

#include "progress/thread_placement.hpp"

namespace overlap::progress {

std::string ProgressEngine::start(const EngineConfig& config, ThreadHooks hooks) {
  stop();
  config_ = config;
  if (needs_thread(config)) {
    auto thread = std::make_unique<ProgressThread>(scheduler_, config, std::move(hooks));
    if (!thread->error().empty()) return thread->error();
    if (config.policy == ProgressPolicy::dedicated && config.exclusive_core) {
      std::string why = exclude_core_from_this_thread(thread->bound_core());
      if (!why.empty())
        return "the dedicated policy needs a core the computation does not use: " + why;
    }
    thread_ = std::move(thread);
  }
  running_ = true;
  return "";
}

void ProgressEngine::stop() {
  thread_.reset();
  running_ = false;
}

void ProgressEngine::wait_until(const std::function<bool()>& done) {
  int idle = 0;
  while (!done()) {
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
