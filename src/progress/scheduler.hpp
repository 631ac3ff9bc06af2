// Drives every task graph in flight. progress() is the whole contract (as in UCX): one
// pass over all graphs, returning how much work it did. Any thread may call it; one
// thread at a time does the pass and the others return 0 at once, so a thread waiting on
// one collective helps all of them (collaborative progress) and nobody blocks on a lock
// while MPI may hold its own.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <memory>
#include <mutex>
#include <vector>

#include "progress/task_graph.hpp"

namespace overlap::progress {

class Scheduler {
 public:
  // Takes shared ownership until the graph completes. Thread-safe.
  void submit(std::shared_ptr<TaskGraph> graph);
  // One pass. Returns 0 when another thread is doing the pass, or when called again from
  // inside a pass (MPI progress hooks can re-enter through MPI_Test).
  int progress();
  // Graphs submitted and not yet complete.
  std::size_t in_flight() const { return in_flight_.load(std::memory_order_acquire); }

  // For progress threads: blocks until a graph is in flight or stop() was called.
  // Returns false on stop. A submit() racing with the call is never missed.
  bool wait_for_work();
  void stop();

 private:
  std::mutex pass_;                                 // held for a pass; only ever try-locked
  std::vector<std::shared_ptr<TaskGraph>> active_;  // guarded by pass_

  std::mutex inbox_mu_;
  std::condition_variable work_cv_;
  std::vector<std::shared_ptr<TaskGraph>> inbox_;  // guarded by inbox_mu_
  bool stopping_ = false;                          // guarded by inbox_mu_
  std::atomic<std::size_t> in_flight_{0};
};

}  // namespace overlap::progress
