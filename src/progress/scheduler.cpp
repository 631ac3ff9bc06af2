#include "progress/scheduler.hpp"

#include <utility>

namespace overlap::progress {
namespace {
// Depth of progress passes on this thread (over all schedulers): a pass calls MPI_Test,
// which may call our MPI hook, which must not start a nested pass.
thread_local int pass_depth = 0;
}  // namespace

void Scheduler::submit(std::shared_ptr<TaskGraph> graph) {
  {
    std::lock_guard lock(inbox_mu_);
    inbox_.push_back(std::move(graph));
    in_flight_.fetch_add(1, std::memory_order_acq_rel);
  }
  work_cv_.notify_all();
}

int Scheduler::progress() {
  if (pass_depth > 0) return 0;
  std::unique_lock pass(pass_, std::try_to_lock);
  if (!pass.owns_lock()) return 0;
  ++pass_depth;
  {
    std::lock_guard lock(inbox_mu_);
    for (auto& g : inbox_) active_.push_back(std::move(g));
    inbox_.clear();
  }
  int work = 0;
  // Index loop: a completion callback may submit a new graph (it lands in the inbox).
  for (std::size_t i = 0; i < active_.size();) {
    work += active_[i]->advance();
    if (active_[i]->complete()) {
      active_[i] = std::move(active_.back());
      active_.pop_back();
      in_flight_.fetch_sub(1, std::memory_order_acq_rel);
    } else {
      ++i;
    }
  }
  --pass_depth;
  return work;
}

bool Scheduler::wait_for_work() {
  std::unique_lock lock(inbox_mu_);
  work_cv_.wait(lock, [&] { return stopping_ || in_flight_.load() > 0; });
  return !stopping_;
}

void Scheduler::stop() {
  {
    std::lock_guard lock(inbox_mu_);
    stopping_ = true;
  }
  work_cv_.notify_all();
}

}  // namespace overlap::progress
