#include "progress/task_graph.hpp"

#include <algorithm>
#include <cassert>
#include <cstring>
#include <utility>

#include "progress/step_pacing.hpp"

namespace overlap::progress {
namespace {
// Scratch buffers up to this size come from the graph's arena: allocated once, when their
// first user starts, and kept until the graph completes.
constexpr std::size_t kSmallScratchBytes = 512;

// Empties `v` and hands its memory back to its allocator (shrink_to_fit may keep it).
template <class V>
void forget(V& v) {
  v = V(v.get_allocator());
}
}  // namespace

TaskGraph::TaskGraph(std::unique_ptr<Transport> transport) : transport_(std::move(transport)) {
  // A small collective's tasks and edges, each in one piece of the arena.
  tasks_.reserve(8);
  edges_.reserve(16);
  on_complete_.reserve(3);
}

TaskId TaskGraph::add(Task task, std::initializer_list<TaskId> after) {
  const auto id = static_cast<TaskId>(tasks_.size());
  tasks_.push_back(std::move(task));
  for (TaskId before : after) depend(id, before);
  return id;
}

TaskId TaskGraph::send(Buf buf, std::size_t bytes, int peer, int tag,
                       std::initializer_list<TaskId> after) {
  Task t;
  t.kind = TaskKind::send;
  t.src = buf;
  t.size = bytes;
  t.peer = peer;
  t.tag = tag;
  return add(std::move(t), after);
}

TaskId TaskGraph::recv(Buf buf, std::size_t bytes, int peer, int tag,
                       std::initializer_list<TaskId> after) {
  Task t;
  t.kind = TaskKind::recv;
  t.dst = buf;
  t.size = bytes;
  t.peer = peer;
  t.tag = tag;
  return add(std::move(t), after);
}

TaskId TaskGraph::reduce(Buf in, Buf inout, std::size_t count, ReduceOp op,
                         std::initializer_list<TaskId> after) {
  Task t;
  t.kind = TaskKind::reduce;
  t.src = in;
  t.dst = inout;
  t.size = count;
  t.reduce = op;
  return add(std::move(t), after);
}

TaskId TaskGraph::copy(Buf src, Buf dst, std::size_t bytes, std::initializer_list<TaskId> after) {
  Task t;
  t.kind = TaskKind::copy;
  t.src = src;
  t.dst = dst;
  t.size = bytes;
  return add(std::move(t), after);
}

void TaskGraph::depend(TaskId task, TaskId before) {
  assert(!started_ && task < tasks_.size() && before < tasks_.size() && task != before);
  const auto edge = static_cast<std::uint32_t>(edges_.size());
  edges_.push_back(Edge{task, kNoEdge});
  Task& b = tasks_[before];
  if (b.last_edge == kNoEdge)
    b.first_edge = edge;
  else
    edges_[b.last_edge].next = edge;
  b.last_edge = edge;
  ++tasks_[task].waiting_on;
}

Buf TaskGraph::scratch(std::size_t bytes) {
  // A zero-byte buffer still gets a distinct address: MPI may be handed it.
  scratch_.push_back(Scratch{bytes == 0 ? 1 : bytes, nullptr, nullptr, 0});
  return Buf::scratch(static_cast<std::uint32_t>(scratch_.size() - 1));
}

std::byte* TaskGraph::at(Buf b) {
  if (!b.is_scratch()) return const_cast<std::byte*>(b.address());  // NOLINT: tasks write dst only
  return scratch_[b.scratch_id()].data() + b.offset();
}

// Calls f on each scratch buffer task `t` uses, once even when it reads and writes it.
template <class F>
void TaskGraph::for_each_scratch(const Task& t, F f) {
  if (t.src.is_scratch()) f(scratch_[t.src.scratch_id()]);
  if (t.dst.is_scratch() && !(t.src.is_scratch() && t.src.scratch_id() == t.dst.scratch_id()))
    f(scratch_[t.dst.scratch_id()]);
}

void TaskGraph::acquire(const Task& t) {
  for_each_scratch(t, [&](Scratch& s) {
    if (s.data() != nullptr) return;
    if (s.bytes <= kSmallScratchBytes)
      s.small =
          static_cast<std::byte*>(arena_.resource()->allocate(s.bytes, alignof(std::max_align_t)));
    else
      s.memory = std::make_unique_for_overwrite<std::byte[]>(s.bytes);
    scratch_live_bytes_ += s.bytes;
  });
}

void TaskGraph::release(const Task& t) {
  for_each_scratch(t, [&](Scratch& s) {
    if (--s.users == 0 && s.data() != nullptr) {
      s.memory.reset();
      s.small = nullptr;  // the arena keeps it until the graph completes
      scratch_live_bytes_ -= s.bytes;
    }
  });
}

void TaskGraph::open() {
  started_ = true;
  ready_.reserve(tasks_.size());
  local_.reserve(tasks_.size());
  running_.reserve(tasks_.size());
  for (const Task& t : tasks_) for_each_scratch(t, [](Scratch& s) { ++s.users; });
  for (TaskId id = 0; id < tasks_.size(); ++id) {
    if (tasks_[id].waiting_on == 0) {
      tasks_[id].state = TaskState::ready;
      ready_.push_back(id);
    }
  }
}

int TaskGraph::start_ready(std::size_t budget) {
  if (complete()) return 0;
  int work = 0;
  if (abandoned()) {
    // Once, under the pass: drop what has not started, cancel posted receives.
    if (!abandon_done_.load(std::memory_order_relaxed)) {
      ready_.clear();
      local_.clear();
      started_ = true;
      for (TaskId id : running_) {
        if (tasks_[id].kind == TaskKind::recv) tester().cancel(tasks_[id].request);
      }
      abandon_done_.store(true, std::memory_order_release);
      ++work;
    }
    check_complete();
    return work;
  }
  if (!started_) {
    // A gate may fail the graph (its communicator cannot be used): handle that at once.
    if (gate_ && !gate_(*this)) return abandoned() ? start_ready(budget) : 0;
    open();
    if (tasks_.empty()) ++work;  // an empty collective (e.g. P = 1 barrier) is done at once
  }
  // Post what is ready, then do local work; finished local tasks may make more ready.
  for (;;) {
    work += post_ready();
    if (local_.empty()) break;
    const TaskId id = local_.front();
    const std::size_t before = tasks_[id].done;
    const bool finished = run_local(id, budget);
    if (!finished) {
      // Out of budget: continue in the next call, which must come soon (a pause of the
      // shared thread here would hold back everything waiting on this task).
      if (tasks_[id].done != before) ++work;
      break;
    }
    local_.pop_front();
    finish(id);
    ++work;
  }
  check_complete();
  return work;
}

// Posts every ready send and receive; local tasks queue up for run_local.
int TaskGraph::post_ready() {
  int work = 0;
  const std::int64_t now = ready_.empty() ? 0 : monotonic_ns();
  while (!ready_.empty()) {
    const TaskId id = ready_.front();
    ready_.pop_front();
    Task& t = tasks_[id];
    t.state = TaskState::running;
    acquire(t);
    switch (t.kind) {
      case TaskKind::send:
        t.request = transport_->post_send(at(t.src), t.size, t.peer, t.tag);
        t.posted_ns = now;
        running_.push_back(id);
        ++work;
        break;
      case TaskKind::recv:
        t.request = transport_->post_recv(at(t.dst), t.size, t.peer, t.tag);
        t.posted_ns = now;
        running_.push_back(id);
        receives_running_.fetch_add(1, std::memory_order_acq_rel);
        ++work;
        break;
      case TaskKind::reduce:
      case TaskKind::copy:
        local_.push_back(id);
        break;
    }
  }
  return work;
}

// Does up to `budget` bytes of a reduction or copy; true when it is complete.
bool TaskGraph::run_local(TaskId id, std::size_t& budget) {
  Task& t = tasks_[id];
  const std::size_t unit = t.kind == TaskKind::reduce ? t.reduce.elem_size : 1;
  const std::size_t left = t.size - t.done;
  if (left == 0) return true;
  const std::size_t n = std::min(left, budget / std::max<std::size_t>(unit, 1));
  if (n == 0) return false;
  const std::size_t at_byte = t.done * unit;
  if (t.kind == TaskKind::reduce) {
    t.reduce.fn(at(t.src) + at_byte, at(t.dst) + at_byte, n);
  } else if (at(t.src) != at(t.dst)) {
    std::memcpy(at(t.dst) + at_byte, at(t.src) + at_byte, n);
  }
  t.done += n;
  budget -= n * unit;
  return t.done == t.size;
}

void TaskGraph::network_done(TaskId id) {
  const auto it = std::find(running_.begin(), running_.end(), id);
  assert(it != running_.end());
  *it = running_.back();
  running_.pop_back();
  tasks_[id].request = 0;
  if (tasks_[id].kind == TaskKind::recv) receives_running_.fetch_sub(1, std::memory_order_acq_rel);
  if (abandoned()) {
    release(tasks_[id]);
    check_complete();
    return;
  }
  finish(id);
}

void TaskGraph::finish(TaskId id) {
  Task& t = tasks_[id];
  t.state = TaskState::done;
  release(t);
  ++finished_;
  for (std::uint32_t e = t.first_edge; e != kNoEdge; e = edges_[e].next) {
    const TaskId next = edges_[e].to;
    if (--tasks_[next].waiting_on == 0) {
      tasks_[next].state = TaskState::ready;
      ready_.push_back(next);
    }
  }
}

void TaskGraph::check_complete() {
  if (complete() || !started_) return;
  const bool done = abandoned() ? running_.empty() : finished_ == tasks_.size();
  if (!done) return;
  // Everything MPI could still touch has finished: the memory can go.
  forget(scratch_);
  scratch_live_bytes_ = 0;
  forget(tasks_);
  complete_.store(true, std::memory_order_release);
  for (auto& callback : on_complete_) callback();
  drop_bookkeeping();
}

// After the callbacks: they may use what the transport keeps alive (the communicator's
// context). Everything left in the arena goes with it.
void TaskGraph::drop_bookkeeping() {
  transport_.reset();  // and with it the communicator it kept alive
  forget(on_complete_);
  forget(edges_);
  ready_.reset();
  local_.reset();
  forget(running_);
  gate_ = nullptr;
  arena_.release();
}

int TaskGraph::advance() {
  int work = start_ready();
  if (complete()) return work;
  std::vector<RequestSlot> slots;
  const std::vector<TaskId> ids(running_.begin(), running_.end());
  for (TaskId id : ids) slots.push_back(tasks_[id].request);
  std::vector<std::size_t> done;
  if (!slots.empty()) tester().test_some(slots, done, nullptr);
  for (std::size_t i : done) network_done(ids[i]);
  work += static_cast<int>(done.size());
  work += start_ready();
  return work;
}

int TaskGraph::settle_sends() {
  if (complete() || running_.empty()) return 0;
  const bool sends_only = std::all_of(running_.begin(), running_.end(),
                                      [&](TaskId id) { return tasks_[id].kind == TaskKind::send; });
  if (!sends_only) return 0;
  // One send at a time until one has not finished: the test of a finished send runs no
  // progress round (RequestTester::test_one), that of an unfinished one a single round.
  int work = 0;
  while (!running_.empty() && tester().test_one(tasks_[running_.front()].request)) {
    network_done(running_.front());
    ++work;
  }
  if (work > 0) work += start_ready();
  return work;
}

void TaskGraph::abandon() { abandoned_.store(true, std::memory_order_release); }

void TaskGraph::fail(int code) {
  failure_code_.store(code, std::memory_order_release);
  abandon();
}

}  // namespace overlap::progress
