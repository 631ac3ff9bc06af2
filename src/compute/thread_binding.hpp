// Binding the calling thread to a set of hardware threads (PUs), and undoing it: the
// computation's threads are bound while they compute, so threads the main thread creates
// between runs (an MPI library's progress thread, liboverlap's shared one) keep the
// process's own placement.
#pragma once

#include <sched.h>

#include <vector>

namespace overlap::compute {

class ThreadBinding {
 public:
  // Remembers the calling thread's current mask and binds it to `pus` (no-op if empty).
  explicit ThreadBinding(const std::vector<int>& pus);
  // Restores the remembered mask.
  ~ThreadBinding();
  ThreadBinding(const ThreadBinding&) = delete;
  ThreadBinding& operator=(const ThreadBinding&) = delete;

 private:
  cpu_set_t saved_;
  bool active_ = false;
};

// Binds the calling thread to `pus` for good (no-op if empty); false if the kernel refused.
bool bind_this_thread(const std::vector<int>& pus);

}  // namespace overlap::compute
