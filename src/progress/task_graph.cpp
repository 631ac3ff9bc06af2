#include "progress/task_graph.hpp"

#include <cassert>
#include <cstring>
#include <utility>

namespace overlap::progress {

TaskGraph::TaskGraph(std::unique_ptr<Transport> transport) : transport_(std::move(transport)) {}

TaskId TaskGraph::add(Task task, std::initializer_list<TaskId> after) {
  const auto id = static_cast<TaskId>(tasks_.size());
  tasks_.push_back(std::move(task));
  for (TaskId before : after) depend(id, before);
  return id;
}

TaskId TaskGraph::send(const void* buf, std::size_t bytes, int peer, int tag,
                       std::initializer_list<TaskId> after) {
  Task t;
  t.kind = TaskKind::send;
  t.src = buf;
  t.size = bytes;
  t.peer = peer;
  t.tag = tag;
  return add(std::move(t), after);
}

TaskId TaskGraph::recv(void* buf, std::size_t bytes, int peer, int tag,
                       std::initializer_list<TaskId> after) {
  Task t;
  t.kind = TaskKind::recv;
  t.dst = buf;
  t.size = bytes;
  t.peer = peer;
  t.tag = tag;
  return add(std::move(t), after);
}

TaskId TaskGraph::reduce(const void* in, void* inout, std::size_t count, ReduceFn fn,
                         std::initializer_list<TaskId> after) {
  Task t;
  t.kind = TaskKind::reduce;
  t.src = in;
  t.dst = inout;
  t.size = count;
  t.reduce = fn;
  return add(std::move(t), after);
}

TaskId TaskGraph::copy(const void* src, void* dst, std::size_t bytes,
                       std::initializer_list<TaskId> after) {
  Task t;
  t.kind = TaskKind::copy;
  t.src = src;
  t.dst = dst;
  t.size = bytes;
  return add(std::move(t), after);
}

void TaskGraph::depend(TaskId task, TaskId before) {
  assert(!started_ && task < tasks_.size() && before < tasks_.size() && task != before);
  tasks_[before].successors.push_back(task);
  ++tasks_[task].waiting_on;
}

std::byte* TaskGraph::scratch(std::size_t bytes) {
  // A zero-byte request still gets a distinct address: MPI may be handed it.
  scratch_.push_back(std::make_unique_for_overwrite<std::byte[]>(bytes == 0 ? 1 : bytes));
  return scratch_.back().get();
}

int TaskGraph::advance() {
  if (complete()) return 0;
  int work = 0;
  if (!started_) {
    if (gate_ && !gate_()) return 0;
    started_ = true;
    for (TaskId id = 0; id < tasks_.size(); ++id) {
      if (tasks_[id].waiting_on == 0) {
        tasks_[id].state = TaskState::ready;
        ready_.push_back(id);
      }
    }
    if (tasks_.empty()) ++work;  // an empty collective (e.g. P = 1 barrier) is done at once
  }
  work += start_ready();
  work += test_running();
  work += start_ready();
  if (finished_ == tasks_.size()) {
    complete_.store(true, std::memory_order_release);
    if (on_complete_) on_complete_();
  }
  return work;
}

int TaskGraph::start_ready() {
  int work = 0;
  // Local tasks finish inside the loop and may make more tasks ready; keep going.
  while (!ready_.empty()) {
    const TaskId id = ready_.front();
    ready_.pop_front();
    Task& t = tasks_[id];
    ++work;
    switch (t.kind) {
      case TaskKind::send:
        t.state = TaskState::running;
        t.request = transport_->post_send(t.src, t.size, t.peer, t.tag);
        running_.push_back(id);
        break;
      case TaskKind::recv:
        t.state = TaskState::running;
        t.request = transport_->post_recv(t.dst, t.size, t.peer, t.tag);
        running_.push_back(id);
        break;
      case TaskKind::reduce:
        if (t.size > 0) t.reduce(t.src, t.dst, t.size);
        finish(id);
        break;
      case TaskKind::copy:
        if (t.size > 0 && t.src != t.dst) std::memcpy(t.dst, t.src, t.size);
        finish(id);
        break;
    }
  }
  return work;
}

int TaskGraph::test_running() {
  int work = 0;
  for (std::size_t i = 0; i < running_.size();) {
    const TaskId id = running_[i];
    if (transport_->test(tasks_[id].request)) {
      running_[i] = running_.back();
      running_.pop_back();
      finish(id);
      ++work;
    } else {
      ++i;
    }
  }
  return work;
}

void TaskGraph::finish(TaskId id) {
  Task& t = tasks_[id];
  t.state = TaskState::done;
  ++finished_;
  for (TaskId next : t.successors) {
    if (--tasks_[next].waiting_on == 0) {
      tasks_[next].state = TaskState::ready;
      ready_.push_back(next);
    }
  }
}

}  // namespace overlap::progress
