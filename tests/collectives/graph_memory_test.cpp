// A small collective's graph makes no heap allocation of its own, from building to
// completion (progress/graph_arena.hpp, collectives/deps.hpp): allocations are counted
// with a replaced global operator new while one thread builds and runs graphs over a
// transport whose operations finish at once. Before the arena, an 8-byte allreduce on 2
// ranks made about 20 here (docs/liboverlap.md, "The fixed cost of a collective").
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <memory>
#include <new>
#include <vector>

#include "collectives/algorithms.hpp"
#include "progress/task_graph.hpp"

namespace {
thread_local bool counting = false;
thread_local std::size_t allocations = 0;
}  // namespace

// Every allocation of this binary goes through here (std::pmr's new_delete_resource uses
// the aligned form); only those made while `counting` are counted.
void* operator new(std::size_t bytes) {
  if (counting) ++allocations;
  if (void* p = std::malloc(bytes == 0 ? 1 : bytes)) return p;
  throw std::bad_alloc();
}
void* operator new(std::size_t bytes, std::align_val_t align) {
  if (counting) ++allocations;
  const auto a = static_cast<std::size_t>(align);
  if (void* p = std::aligned_alloc(a, (bytes + a - 1) / a * a)) return p;
  throw std::bad_alloc();
}
void* operator new[](std::size_t bytes) { return ::operator new(bytes); }
void* operator new[](std::size_t bytes, std::align_val_t align) {
  return ::operator new(bytes, align);
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t) noexcept { std::free(p); }
void operator delete(void* p, std::align_val_t) noexcept { std::free(p); }
void operator delete[](void* p, std::align_val_t) noexcept { std::free(p); }
void operator delete(void* p, std::size_t, std::align_val_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t, std::align_val_t) noexcept { std::free(p); }

namespace overlap::collectives {
namespace {

using progress::RequestSlot;
using progress::RequestStatus;

// Operations that finish as soon as they are posted (their data are not moved: only the
// graph's own bookkeeping is under test).
class InstantTester : public progress::RequestTester {
 public:
  void test_some(std::span<RequestSlot>, std::vector<std::size_t>&, RequestStatus*) override {}
  void cancel(RequestSlot) override {}
};
class InstantTransport : public progress::Transport {
 public:
  RequestSlot post_send(const void*, std::size_t, int, int) override { return 1; }
  RequestSlot post_recv(void*, std::size_t, int, int) override { return 1; }
  progress::RequestTester& tester() override { return tester_; }

 private:
  InstantTester tester_;
};

void add_doubles(const void* in, void* inout, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i)
    static_cast<double*>(inout)[i] += static_cast<const double*>(in)[i];
}
const ReduceKernel kDoubleSum{&add_doubles, nullptr, sizeof(double)};

// Heap allocations made while building graph `build` on a fresh graph and running it to
// completion the way the scheduler does (start, finish what is running, start again).
template <class Build>
std::size_t allocations_of(Build build) {
  auto graph = std::make_unique<TaskGraph>(std::make_unique<InstantTransport>());
  allocations = 0;
  counting = true;
  build(*graph);
  graph->start_ready();
  for (int steps = 0; !graph->complete() && steps < 10000; ++steps) {
    const auto running = graph->running();
    if (!running.empty()) graph->network_done(running.front());
    graph->start_ready();
  }
  counting = false;
  EXPECT_TRUE(graph->complete());
  return allocations;
}

TEST(GraphMemory, SmallCollectivesOnTwoRanksAllocateNothing) {
  std::vector<double> in(128, 1.0), out(128, 0.0);
  // Up to 64 doubles: a scratch buffer of 512 bytes or less comes from the arena too.
  for (std::size_t count : {std::size_t{1}, std::size_t{8}, std::size_t{64}}) {
    SCOPED_TRACE(count);
    for (int rank = 0; rank < 2; ++rank) {
      const Group grp{rank, 2};
      EXPECT_EQ(allocations_of([&](TaskGraph& g) {
                  build_iallreduce(g, in.data(), out.data(), count, kDoubleSum, grp);
                }),
                0u);
      EXPECT_EQ(allocations_of([&](TaskGraph& g) {  // in place
                  build_iallreduce(g, nullptr, out.data(), count, kDoubleSum, grp);
                }),
                0u);
      EXPECT_EQ(allocations_of([&](TaskGraph& g) {
                  build_ibcast(g, out.data(), count * sizeof(double), 0, grp);
                }),
                0u);
      EXPECT_EQ(allocations_of([&](TaskGraph& g) { build_ibarrier(g, grp); }), 0u);
    }
  }
}

// On 8 ranks too (three rounds of recursive doubling, a tree of three levels); alltoall
// keeps one list per step, and its graph outgrows the inline block.
TEST(GraphMemory, EightRanksAllocateAlmostNothing) {
  std::vector<double> in(8, 1.0), out(8, 0.0);
  for (int rank : {0, 3, 7}) {
    SCOPED_TRACE(rank);
    const Group grp{rank, 8};
    EXPECT_EQ(allocations_of([&](TaskGraph& g) {
                build_iallreduce(g, in.data(), out.data(), 1, kDoubleSum, grp);
              }),
              0u);
    EXPECT_EQ(
        allocations_of([&](TaskGraph& g) { build_ibcast(g, out.data(), sizeof(double), 0, grp); }),
        0u);
    EXPECT_LE(allocations_of([&](TaskGraph& g) {
                build_ialltoall(g, in.data(), out.data(), sizeof(double), grp);
              }),
              2u);
  }
}

// The gate and the completion callback c_api.cpp gives every collective: closures of a
// pointer and a sequence number fit in std::function without an allocation.
TEST(GraphMemory, GateAndCompletionCallbackAllocateNothing) {
  struct Seen {
    std::uint64_t started = 0, completed = 0;
  } seen;
  const std::uint64_t seq = 7;
  EXPECT_EQ(allocations_of([&](TaskGraph& g) {
              build_ibarrier(g, Group{0, 2});
              g.start_when([s = &seen, seq](TaskGraph&) {
                s->started = seq;
                return true;
              });
              g.on_complete([s = &seen, seq] { s->completed = seq; });
            }),
            0u);
  EXPECT_EQ(seen.started, seq);
  EXPECT_EQ(seen.completed, seq);
}

// A large graph continues on the heap in a few growing blocks, not an allocation per task
// or edge (a 256-rank alltoall has over 500 tasks and as many edges; 11 allocations when
// this test was written, over a thousand before the arena).
TEST(GraphMemory, LargeGraphsAllocateAFewBlocks) {
  std::vector<double> in(256, 1.0), out(256, 0.0);
  const Group grp{5, 256};
  EXPECT_LE(allocations_of([&](TaskGraph& g) {
              build_ialltoall(g, in.data(), out.data(), sizeof(double), grp);
            }),
            16u);
}

}  // namespace
}  // namespace overlap::collectives
