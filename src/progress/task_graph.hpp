// A collective as a graph of tasks. Builders (collectives/) add tasks and edges; the
// scheduler then calls advance() until complete(). A task starts as soon as its own
// inputs are ready, so independent branches (and other graphs) interleave freely.
#pragma once

#include <atomic>
#include <cstddef>
#include <deque>
#include <functional>
#include <initializer_list>
#include <memory>
#include <vector>

#include "progress/task.hpp"
#include "progress/transport.hpp"

namespace overlap::progress {

class TaskGraph {
 public:
  explicit TaskGraph(std::unique_ptr<Transport> transport);
  TaskGraph(const TaskGraph&) = delete;
  TaskGraph& operator=(const TaskGraph&) = delete;

  // --- building (before submission, by one thread) ---
  // Each returns the new task's id; `after` lists tasks that must finish first.
  TaskId send(const void* buf, std::size_t bytes, int peer, int tag,
              std::initializer_list<TaskId> after = {});
  TaskId recv(void* buf, std::size_t bytes, int peer, int tag,
              std::initializer_list<TaskId> after = {});
  TaskId reduce(const void* in, void* inout, std::size_t count, ReduceFn fn,
                std::initializer_list<TaskId> after = {});
  TaskId copy(const void* src, void* dst, std::size_t bytes,
              std::initializer_list<TaskId> after = {});
  // `task` starts only after `before` finished.
  void depend(TaskId task, TaskId before);
  // Graph-owned temporary memory, valid until the graph is destroyed.
  std::byte* scratch(std::size_t bytes);
  // No task starts before `ready()` returns true (polled on each advance). Used to wait
  // for resources set up asynchronously, e.g. a communicator being duplicated.
  void start_when(std::function<bool()> ready) { gate_ = std::move(ready); }
  // Called once, by the thread that finishes the last task.
  void on_complete(std::function<void()> callback) { on_complete_ = std::move(callback); }

  std::size_t size() const { return tasks_.size(); }
  const Task& task(TaskId id) const { return tasks_[id]; }

  // --- running (by one thread at a time; the Scheduler guarantees it) ---
  // Starts ready tasks and tests running ones. Returns how much happened (tasks started
  // plus tasks finished), so callers can tell a busy pass from an idle one.
  int advance();
  bool complete() const { return complete_.load(std::memory_order_acquire); }

 private:
  TaskId add(Task task, std::initializer_list<TaskId> after);
  int start_ready();
  int test_running();
  void finish(TaskId id);

  std::unique_ptr<Transport> transport_;
  std::vector<Task> tasks_;
  std::vector<std::unique_ptr<std::byte[]>> scratch_;
  std::deque<TaskId> ready_;
  std::vector<TaskId> running_;
  std::size_t finished_ = 0;
  bool started_ = false;
  std::atomic<bool> complete_{false};
  std::function<void()> on_complete_;
  std::function<bool()> gate_;
};

}  // namespace overlap::progress
