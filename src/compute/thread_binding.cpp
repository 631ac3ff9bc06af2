#include "compute/thread_binding.hpp"

namespace overlap::compute {

bool bind_this_thread(const std::vector<int>& pus) {
  if (pus.empty()) return true;
  cpu_set_t set;
  CPU_ZERO(&set);
  for (int pu : pus) CPU_SET(pu, &set);
  return sched_setaffinity(0, sizeof(set), &set) == 0;  // 0: the calling thread
}

ThreadBinding::ThreadBinding(const std::vector<int>& pus) {
  CPU_ZERO(&saved_);
  if (pus.empty() || sched_getaffinity(0, sizeof(saved_), &saved_) != 0) return;
  active_ = bind_this_thread(pus);
}

ThreadBinding::~ThreadBinding() {
  if (active_) sched_setaffinity(0, sizeof(saved_), &saved_);
}

}  // namespace overlap::compute
