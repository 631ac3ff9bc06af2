// A collective as a graph of tasks. Builders (collectives/) add tasks and edges; the
// scheduler then drives it until complete(). A task starts as soon as its own inputs are
// ready, so independent branches (and other graphs) interleave freely.
//
// Memory: scratch buffers are declared while building but allocated only when the first
// task using them starts, and freed when the last one finishes; at completion the graph
// also drops its tasks and its transport. A graph that waits (not started yet, or done
// but not yet waited on by the application) therefore costs little. The graph's own
// bookkeeping (tasks, edges, queues, callbacks, small scratch buffers) lives in its arena
// (graph_arena.hpp): a small collective makes no heap allocation of its own.
#pragma once

#include <atomic>
#include <cstddef>
#include <functional>
#include <initializer_list>
#include <memory>
#include <memory_resource>
#include <span>
#include <vector>

#include "progress/graph_arena.hpp"
#include "progress/id_queue.hpp"
#include "progress/task.hpp"
#include "progress/transport.hpp"

namespace overlap::progress {

// Local work (reductions, copies) one graph does per call of start_ready: a long
// reduction is done in pieces, so one collective cannot stall the others for long.
inline constexpr std::size_t kLocalBudgetBytes = std::size_t{1} << 20;

class TaskGraph {
 public:
  explicit TaskGraph(std::unique_ptr<Transport> transport);
  TaskGraph(const TaskGraph&) = delete;
  TaskGraph& operator=(const TaskGraph&) = delete;

  // --- building (before submission, by one thread) ---
  // Each returns the new task's id; `after` lists tasks that must finish first.
  TaskId send(Buf buf, std::size_t bytes, int peer, int tag,
              std::initializer_list<TaskId> after = {});
  TaskId recv(Buf buf, std::size_t bytes, int peer, int tag,
              std::initializer_list<TaskId> after = {});
  // inout = in (op) inout, `count` elements.
  TaskId reduce(Buf in, Buf inout, std::size_t count, ReduceOp op,
                std::initializer_list<TaskId> after = {});
  TaskId copy(Buf src, Buf dst, std::size_t bytes, std::initializer_list<TaskId> after = {});
  // `task` starts only after `before` finished.
  void depend(TaskId task, TaskId before);
  // Graph-owned temporary memory (see the header comment for when it exists).
  Buf scratch(std::size_t bytes);
  // The graph starts only once `try_start(graph)` returns true; it is polled (under the
  // scheduler's pass) until it does, and never again afterwards, so it may record the
  // start. Used for resources set up asynchronously (a communicator being duplicated)
  // and for the order collectives start in on one communicator. (The graph is an
  // argument so that a gate needs no pointer to it: std::function keeps a closure of up
  // to 16 trivially copyable bytes without allocating.)
  void start_when(std::function<bool(TaskGraph&)> try_start) { gate_ = std::move(try_start); }
  // Called once, by the thread that completes the graph (also when it was abandoned), in
  // the order they were added. The graph's transport (and what it keeps alive) is
  // dropped only after them.
  void on_complete(std::function<void()> callback) { on_complete_.push_back(std::move(callback)); }
  // For a builder's own temporary tables: memory that lives until the graph completes.
  std::pmr::memory_resource* memory() { return arena_.resource(); }

  std::size_t size() const { return tasks_.size(); }
  const Task& task(TaskId id) const { return tasks_[id]; }

  // --- running (by one thread at a time; the Scheduler guarantees it) ---
  // Starts the graph if its gate allows, posts every ready send/receive and does local
  // work up to `budget` bytes. Returns how much happened (tasks started or finished).
  int start_ready(std::size_t budget = kLocalBudgetBytes);
  // The posted operations, for the scheduler's one test over everything in flight.
  std::span<const TaskId> running() const { return running_; }
  RequestSlot& slot(TaskId id) { return tasks_[id].request; }
  RequestTester& tester() { return transport_->tester(); }
  // The scheduler saw running task `id` finish.
  void network_done(TaskId id);
  // start_ready, a test of this graph's own operations, network_done, start_ready: the
  // whole cycle for one graph (the scheduler batches the tests of all graphs instead).
  int advance();
  // For the thread that built the graph, right after its first start_ready: when every
  // operation running is a send, tests them one at a time (RequestTester::test_one) until
  // one has not finished, then starts what follows. A small send often finishes inside its
  // post, so a graph of sends alone (a broadcast's or scatter's root) completes before the
  // call returns and MPI_Wait has no progress round to make (over TCP a poll of every
  // socket, about 2 us on the emulated cluster). Not while a receive runs: it cannot be
  // done yet, and the test would only cost a round. docs/liboverlap.md "The fixed cost of
  // a collective".
  int settle_sends();

  bool started() const { return started_; }
  bool complete() const { return complete_.load(std::memory_order_acquire); }

  // Gives up (shutdown of an erroneous program, or an application that abandons the
  // request): nothing new starts, posted receives are cancelled, and the graph completes,
  // abandoned, once nothing it posted is left running. Any thread may call it; the work
  // happens in the next start_ready.
  void abandon();
  // abandon(), and the request reports `code` (an MPI error code naming the cause) instead
  // of the generic "abandoned" one. Set before abandon() takes effect.
  void fail(int code);
  // The code given to fail(), 0 if none.
  int failure_code() const { return failure_code_.load(std::memory_order_acquire); }
  bool abandoned() const { return abandoned_.load(std::memory_order_acquire); }
  // Receives posted and not finished (an abandoned graph's buffers are safe once this is
  // 0 after abandon() was handled). Any thread may ask.
  int receives_running() const { return receives_running_.load(std::memory_order_acquire); }
  bool abandon_handled() const { return abandon_done_.load(std::memory_order_acquire); }

  // Scratch bytes allocated right now (tests check the lazy allocation).
  std::size_t scratch_bytes() const { return scratch_live_bytes_; }

 private:
  struct Scratch {
    std::size_t bytes = 0;
    std::unique_ptr<std::byte[]> memory;  // a large buffer, while in use
    std::byte* small = nullptr;           // a small one, from the arena
    std::uint32_t users = 0;              // tasks that use it and have not finished
    std::byte* data() const { return small != nullptr ? small : memory.get(); }
  };
  // One entry of a task's list of successors.
  struct Edge {
    TaskId to;
    std::uint32_t next;
  };
  template <class T>
  using Vec = std::pmr::vector<T>;

  TaskId add(Task task, std::initializer_list<TaskId> after);
  void open();
  int post_ready();
  bool run_local(TaskId id, std::size_t& budget);
  void finish(TaskId id);
  template <class F>
  void for_each_scratch(const Task& t, F f);
  void acquire(const Task& t);
  void release(const Task& t);
  std::byte* at(Buf b);
  void check_complete();

  void drop_bookkeeping();

  GraphArena arena_;  // first: the containers below allocate from it
  std::unique_ptr<Transport> transport_;
  Vec<Task> tasks_{arena_.resource()};
  Vec<Edge> edges_{arena_.resource()};
  Vec<Scratch> scratch_{arena_.resource()};
  std::size_t scratch_live_bytes_ = 0;
  IdQueue ready_{arena_.resource()};
  IdQueue local_{arena_.resource()};  // reductions and copies started and not finished
  Vec<TaskId> running_{arena_.resource()};
  std::size_t finished_ = 0;
  bool started_ = false;
  std::atomic<bool> abandon_done_{false};
  std::atomic<bool> abandoned_{false};
  std::atomic<int> failure_code_{0};
  std::atomic<int> receives_running_{0};
  std::atomic<bool> complete_{false};
  Vec<std::function<void()>> on_complete_{arena_.resource()};
  std::function<bool(TaskGraph&)> gate_;
};

}  // namespace overlap::progress
