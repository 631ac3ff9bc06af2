// A first-in first-out queue of task ids over one vector: what a task graph keeps its
// ready and local tasks in. A std::deque allocates a map and a 512-byte block on its first
// push; every collective has two such queues, and for a small collective those
// allocations were a visible part of its cost (docs/liboverlap.md, "Standing down").
#pragma once

#include <cstddef>
#include <memory_resource>
#include <vector>

#include "progress/task.hpp"

namespace overlap::progress {

class IdQueue {
 public:
  IdQueue() = default;
  explicit IdQueue(std::pmr::memory_resource* memory) : ids_(memory) {}
  void reserve(std::size_t n) { ids_.reserve(n); }
  bool empty() const { return head_ == ids_.size(); }
  TaskId front() const { return ids_[head_]; }
  void push_back(TaskId id) { ids_.push_back(id); }
  void pop_front() {
    if (++head_ == ids_.size()) clear();  // drained: start over at the front
  }
  void clear() {
    ids_.clear();
    head_ = 0;
  }
  // Empty, and its memory handed back.
  void reset() {
    ids_ = std::pmr::vector<TaskId>(ids_.get_allocator());  // shrink_to_fit may keep it
    head_ = 0;
  }

 private:
  std::pmr::vector<TaskId> ids_;
  std::size_t head_ = 0;
};

}  // namespace overlap::progress
