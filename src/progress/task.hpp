// One step of a collective: a send, a receive, a local reduction or a copy. Tasks form a
// graph through dependency counters: a task becomes ready when every task it waits on
// has finished, not when a "round" ends.
#pragma once

#include <cstddef>
#include <cstdint>

#include "progress/transport.hpp"

namespace overlap::progress {

using TaskId = std::uint32_t;
// The end of a task's list of successors.
inline constexpr std::uint32_t kNoEdge = ~std::uint32_t{0};

// inout[i] = in[i] (op) inout[i] for `count` elements.
using ReduceFn = void (*)(const void* in, void* inout, std::size_t count);

// A reduction kernel and the size of one element (needed to split long reductions).
struct ReduceOp {
  ReduceFn fn = nullptr;
  std::size_t elem_size = 0;
};

// Where a task's data are: the application's memory (a plain address), or graph-owned
// scratch, which is only allocated while some task that uses it has started and not all
// of them have finished (TaskGraph::scratch). Converts implicitly from an address, and
// offsets add up, so builders write `tmp + offset` for either kind.
class Buf {
 public:
  Buf() = default;
  Buf(const void* address)  // NOLINT: implicit on purpose, an address is a Buf
      : address_(static_cast<const std::byte*>(address)) {}
  static Buf scratch(std::uint32_t id, std::size_t offset = 0) {
    Buf b;
    b.scratch_ = id;
    b.offset_ = offset;
    return b;
  }
  Buf operator+(std::size_t bytes) const {
    Buf b = *this;
    if (is_scratch())
      b.offset_ += bytes;
    else
      b.address_ += bytes;
    return b;
  }
  bool is_scratch() const { return scratch_ != kNone; }
  bool is_null() const { return !is_scratch() && address_ == nullptr; }
  std::uint32_t scratch_id() const { return scratch_; }
  std::size_t offset() const { return offset_; }
  const std::byte* address() const { return address_; }
  friend bool operator==(const Buf& a, const Buf& b) {
    return a.scratch_ == b.scratch_ && a.offset_ == b.offset_ && a.address_ == b.address_;
  }

 private:
  static constexpr std::uint32_t kNone = ~std::uint32_t{0};
  const std::byte* address_ = nullptr;
  std::uint32_t scratch_ = kNone;
  std::size_t offset_ = 0;
};

enum class TaskKind : std::uint8_t { send, recv, reduce, copy };
enum class TaskState : std::uint8_t { blocked, ready, running, done };

struct Task {
  TaskKind kind = TaskKind::copy;
  TaskState state = TaskState::blocked;
  int peer = -1;                 // send, recv
  int tag = 0;                   // send, recv: tag inside the collective
  Buf src;                       // send: data; reduce: `in`; copy: source
  Buf dst;                       // recv: buffer; reduce: `inout`; copy: target
  std::size_t size = 0;          // bytes for send/recv/copy, elements for reduce
  ReduceOp reduce;               // reduce only
  std::size_t done = 0;          // reduce/copy: elements/bytes already processed
  std::uint32_t waiting_on = 0;  // unfinished predecessors
  // The tasks that wait on this one: a list through the graph's edges, in the order the
  // dependencies were added (TaskGraph::depend).
  std::uint32_t first_edge = kNoEdge;
  std::uint32_t last_edge = kNoEdge;
  RequestSlot request = 0;     // send, recv while running
  std::int64_t posted_ns = 0;  // send, recv: when posted (monotonic_ns, step_pacing.hpp)
};

}  // namespace overlap::progress
