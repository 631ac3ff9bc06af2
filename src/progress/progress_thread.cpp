#include "progress/progress_thread.hpp"

#include <future>

#include "progress/thread_placement.hpp"

namespace overlap::progress {
namespace {

inline void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
}

}  // namespace

ProgressThread::ProgressThread(Scheduler& scheduler, const EngineConfig& config)
    : scheduler_(scheduler) {
  if (config.policy == ProgressPolicy::shared) {
    thread_ = std::thread([this, b = config.backoff] { run_shared(b); });
    return;
  }
  if (config.policy != ProgressPolicy::dedicated) return;
  // Bind inside the new thread and report back, so a bad core fails the constructor.
  std::promise<CoreChoice> bound;
  auto result = bound.get_future();
  const int index = config.core_index;
  thread_ = std::thread([this, index, &bound] {
    CoreChoice c = bind_this_thread_to_core(index);
    const bool ok = c.error.empty();
    bound.set_value(std::move(c));
    if (ok) run_dedicated();
  });
  CoreChoice c = result.get();
  if (!c.error.empty()) {
    thread_.join();
    error_ = c.error;
    return;
  }
  bound_core_ = c.core;
}

ProgressThread::~ProgressThread() {
  scheduler_.stop();
  if (thread_.joinable()) thread_.join();
}

ThreadStats ProgressThread::stats() const {
  return {passes_.load(), busy_passes_.load(), sleeps_.load()};
}

void ProgressThread::run_dedicated() {
  while (scheduler_.wait_for_work()) {
    const int work = scheduler_.progress();
    passes_.fetch_add(1, std::memory_order_relaxed);
    if (work > 0)
      busy_passes_.fetch_add(1, std::memory_order_relaxed);
    else
      cpu_relax();
  }
}

void ProgressThread::run_shared(BackoffConfig config) {
  Backoff backoff(config);
  while (scheduler_.wait_for_work()) {
    const int work = scheduler_.progress();
    passes_.fetch_add(1, std::memory_order_relaxed);
    if (work > 0) busy_passes_.fetch_add(1, std::memory_order_relaxed);
    if (scheduler_.in_flight() == 0) {
      backoff.reset();  // the next submission is served at once by wait_for_work
      continue;
    }
    sleeps_.fetch_add(1, std::memory_order_relaxed);
    std::this_thread::sleep_for(backoff.next(work));
  }
}

}  // namespace overlap::progress
