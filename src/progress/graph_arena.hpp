// The memory a task graph's own bookkeeping lives in: its tasks, their edges, its queues,
// its completion callbacks and its builder's tables. A small collective (a few tasks, on
// any P up to about 8) fits in a block inside the graph itself, so building and running
// it takes no heap allocation of its own; a larger one continues in blocks from the heap,
// each larger than the last. The price is 4 KiB per collective in flight.
//
// Why: a small collective's fixed cost was mostly the allocator. An 8-byte allreduce on 2
// ranks made about 24 heap allocations (each vector, each task's successor list, the
// builder's map), and glibc's per-thread cache holds only 7 chunks per size, so the rest
// went through its locked free lists (docs/liboverlap.md, "The fixed cost of a
// collective").
//
// Memory handed out is never reused before release(): the graph releases everything once
// it completes (its containers emptied first), so a completed graph that waits for the
// application's MPI_Wait holds only its inline block. Not thread-safe: a graph is built by
// one thread and run by one thread at a time (the Scheduler's pass), as the containers
// using it already require.
#pragma once

#include <cstddef>
#include <memory_resource>

namespace overlap::progress {

class GraphArena {
 public:
  // Room for a collective of up to 16 tasks with their edges and queues (recursive
  // doubling on 8 ranks has 10, a binomial broadcast there 3 at most).
  static constexpr std::size_t kInlineBytes = 4096;

  GraphArena() = default;
  GraphArena(const GraphArena&) = delete;
  GraphArena& operator=(const GraphArena&) = delete;

  std::pmr::memory_resource* resource() { return &resource_; }
  // Frees every heap block; the inline block is handed out again from its start. Nothing
  // allocated from it may be used afterwards.
  void release() { resource_.release(); }

 private:
  alignas(std::max_align_t) std::byte inline_[kInlineBytes];
  std::pmr::monotonic_buffer_resource resource_{inline_, sizeof inline_,
                                                std::pmr::new_delete_resource()};
};

}  // namespace overlap::progress
