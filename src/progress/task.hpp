// One step of a collective: a send, a receive, a local reduction or a copy. Tasks form a
// graph through dependency counters: a task becomes ready when every task it waits on
// has finished, not when a "round" ends.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "progress/transport.hpp"

namespace overlap::progress {

using TaskId = std::uint32_t;

// inout[i] = in[i] (op) inout[i] for `count` elements. Predefined MPI operations are
// commutative, so the order of the two operands only matters for floating-point rounding.
using ReduceFn = void (*)(const void* in, void* inout, std::size_t count);

enum class TaskKind : std::uint8_t { send, recv, reduce, copy };
enum class TaskState : std::uint8_t { blocked, ready, running, done };

struct Task {
  TaskKind kind = TaskKind::copy;
  TaskState state = TaskState::blocked;
  int peer = -1;                   // send, recv
  int tag = 0;                     // send, recv: tag inside the collective
  const void* src = nullptr;       // send: data; reduce: `in`; copy: source
  void* dst = nullptr;             // recv: buffer; reduce: `inout`; copy: target
  std::size_t size = 0;            // bytes for send/recv/copy, elements for reduce
  ReduceFn reduce = nullptr;       // reduce only
  std::uint32_t waiting_on = 0;    // unfinished predecessors
  std::vector<TaskId> successors;  // tasks that wait on this one
  RequestSlot request = 0;         // send, recv while running
};

}  // namespace overlap::progress
