// Every collective algorithm, for P = 1..17, over the rendezvous-only fake network: the
// results are compared exactly against references computed directly, and the harness
// fails on deadlocks, messages left behind and tags out of range.
#include "collectives/algorithms.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <memory>
#include <numeric>
#include <optional>
#include <utility>
#include <vector>

#include "collectives/graph_harness.hpp"
#include "collectives/schedule.hpp"

namespace overlap::collectives {
namespace {

using testing::GraphHarness;
using testing::Order;
using Bytes = std::vector<std::uint8_t>;
using Ints = std::vector<std::int32_t>;

constexpr int kMaxRanks = 17;

void sum_i32(const void* in, void* inout, std::size_t n) {
  const auto* a = static_cast<const std::int32_t*>(in);
  auto* b = static_cast<std::int32_t*>(inout);
  for (std::size_t i = 0; i < n; ++i) b[i] += a[i];
}

void max_i32(const void* in, void* inout, std::size_t n) {
  const auto* a = static_cast<const std::int32_t*>(in);
  auto* b = static_cast<std::int32_t*>(inout);
  for (std::size_t i = 0; i < n; ++i) b[i] = std::max(a[i], b[i]);
}

struct Kernel {
  const char* name;
  ReduceKernel op;
  std::int32_t (*ref)(std::int32_t, std::int32_t);
};
const Kernel kSum{
    "sum", {sum_i32, nullptr, 4}, [](std::int32_t a, std::int32_t b) { return a + b; }};
const Kernel kMax{
    "max", {max_i32, nullptr, 4}, [](std::int32_t a, std::int32_t b) { return std::max(a, b); }};
const Kernel* const kKernels[] = {&kSum, &kMax};

// Deterministic data that differs per rank, element and test: a sum over 17 ranks stays
// far from overflow, and both signs occur so max is not trivially the last rank's value.
std::uint32_t mix(std::uint64_t x) {
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdULL;
  x ^= x >> 33;
  return static_cast<std::uint32_t>(x);
}
Ints ints(int rank, std::size_t n, int salt) {
  Ints v(n);
  for (std::size_t i = 0; i < n; ++i) {
    const auto key =
        (static_cast<std::uint64_t>(salt) << 48) ^ (static_cast<std::uint64_t>(rank) << 32) ^ i;
    v[i] = static_cast<std::int32_t>(mix(key) % 2001) - 1000;
  }
  return v;
}
Bytes bytes(int who, std::size_t n, int salt) {
  Bytes v(n);
  // Eight bytes per mix: the large cases move megabytes.
  for (std::size_t i = 0; i < n; i += 8) {
    const auto key =
        (static_cast<std::uint64_t>(salt) << 48) ^ (static_cast<std::uint64_t>(who) << 32) ^ i;
    const std::uint64_t word = (std::uint64_t{mix(key)} << 32) | mix(~key);
    std::memcpy(v.data() + i, &word, std::min<std::size_t>(8, n - i));
  }
  return v;
}
Bytes concat(const std::vector<Bytes>& parts) {
  Bytes out;
  for (const auto& p : parts) out.insert(out.end(), p.begin(), p.end());
  return out;
}
// Element-wise reduction over all ranks' vectors, the reference for the reductions.
Ints fold(const std::vector<Ints>& in, const Kernel& k) {
  Ints out = in.at(0);
  for (std::size_t r = 1; r < in.size(); ++r)
    for (std::size_t i = 0; i < out.size(); ++i) out[i] = k.ref(out[i], in[r][i]);
  return out;
}

template <class T>
::testing::AssertionResult same(const std::vector<T>& got, const std::vector<T>& want) {
  if (got.size() != want.size())
    return ::testing::AssertionFailure() << "size " << got.size() << ", want " << want.size();
  const auto diff = std::mismatch(got.begin(), got.end(), want.begin());
  if (diff.first == got.end()) return ::testing::AssertionSuccess();
  const auto at = diff.first - got.begin();
  const auto n = std::inner_product(got.begin(), got.end(), want.begin(), std::size_t{0},
                                    std::plus<>(), std::not_equal_to<>());
  return ::testing::AssertionFailure()
         << n << " of " << got.size() << " elements differ, first " << at << ": got "
         << +*diff.first << ", want " << +*diff.second;
}

void* ptr(Bytes& v) { return v.data(); }
void* ptr(Ints& v) { return v.data(); }

// Cycles through the advance orders so that each sweep exercises all of them.
Order next_order() {
  static int n = 0;
  return static_cast<Order>(n++ % 4);
}

// Roots to try: all of them for small P, the extremes and the middle otherwise.
std::vector<int> roots(int p, bool all) {
  if (all) {
    std::vector<int> r(static_cast<std::size_t>(p));
    for (int i = 0; i < p; ++i) r[static_cast<std::size_t>(i)] = i;
    return r;
  }
  std::vector<int> r = {0, p / 2, p - 1};
  r.erase(std::unique(r.begin(), r.end()), r.end());
  return r;
}

// --- one run of each collective: build, run, compare ---

void check_barrier(int p, Order order) {
  GraphHarness h(p);
  h.add(0, [&](TaskGraph& g, int r) { build_ibarrier(g, Group{r, p}); });
  ASSERT_TRUE(h.run(order));
}

void check_bcast(int p, int root, std::size_t n, Order order,
                 std::optional<BcastAlgorithm> algo = {}) {
  SCOPED_TRACE(::testing::Message() << "bcast P=" << p << " root=" << root << " bytes=" << n);
  const Bytes want = bytes(root, n, 1);
  std::vector<Bytes> buf(static_cast<std::size_t>(p), Bytes(n, 0xEE));
  buf[static_cast<std::size_t>(root)] = want;
  GraphHarness h(p);
  h.add(0, [&](TaskGraph& g, int r) {
    build_ibcast(g, ptr(buf[static_cast<std::size_t>(r)]), n, root, Group{r, p}, algo);
  });
  ASSERT_TRUE(h.run(order));
  for (int r = 0; r < p; ++r)
    ASSERT_TRUE(same(buf[static_cast<std::size_t>(r)], want)) << "rank " << r;
}

void check_reduce(int p, int root, std::size_t n, const Kernel& k, bool in_place, Order order,
                  std::optional<ReduceAlgorithm> algo = {}) {
  SCOPED_TRACE(::testing::Message() << "reduce P=" << p << " root=" << root << " count=" << n << " "
                                    << k.name << (in_place ? " in place" : ""));
  std::vector<Ints> send;
  for (int r = 0; r < p; ++r) send.push_back(ints(r, n, 2));
  const Ints want = fold(send, k);
  Ints recv = in_place ? send[static_cast<std::size_t>(root)] : Ints(n, -7);
  GraphHarness h(p);
  h.add(0, [&](TaskGraph& g, int r) {
    const bool at_root = r == root;
    const void* s = at_root && in_place ? nullptr : ptr(send[static_cast<std::size_t>(r)]);
    build_ireduce(g, s, at_root ? ptr(recv) : nullptr, n, k.op, root, Group{r, p}, algo);
  });
  ASSERT_TRUE(h.run(order));
  ASSERT_TRUE(same(recv, want));
  // The send buffers are input only.
  for (int r = 0; r < p; ++r)
    ASSERT_TRUE(same(send[static_cast<std::size_t>(r)], ints(r, n, 2))) << "rank " << r;
}

void check_allreduce(int p, std::size_t n, const Kernel& k, bool in_place, Order order,
                     std::optional<AllreduceAlgorithm> algo = {}) {
  SCOPED_TRACE(::testing::Message() << "allreduce P=" << p << " count=" << n << " " << k.name
                                    << (in_place ? " in place" : ""));
  std::vector<Ints> send;
  for (int r = 0; r < p; ++r) send.push_back(ints(r, n, 3));
  const Ints want = fold(send, k);
  std::vector<Ints> recv =
      in_place ? std::move(send) : std::vector<Ints>(static_cast<std::size_t>(p), Ints(n, -7));
  GraphHarness h(p);
  h.add(0, [&](TaskGraph& g, int r) {
    const auto i = static_cast<std::size_t>(r);
    build_iallreduce(g, in_place ? nullptr : ptr(send[i]), ptr(recv[i]), n, k.op, Group{r, p},
                     algo);
  });
  ASSERT_TRUE(h.run(order));
  for (int r = 0; r < p; ++r) {
    const auto i = static_cast<std::size_t>(r);
    ASSERT_TRUE(same(recv[i], want)) << "rank " << r;
    if (!in_place) {
      ASSERT_TRUE(same(send[i], ints(r, n, 3))) << "rank " << r << " send buffer";
    }
  }
}

void check_allgather(int p, std::size_t bb, bool in_place, Order order,
                     std::optional<AllgatherAlgorithm> algo = {}) {
  SCOPED_TRACE(::testing::Message()
               << "allgather P=" << p << " block=" << bb << (in_place ? " in place" : ""));
  std::vector<Bytes> blocks;
  for (int r = 0; r < p; ++r) blocks.push_back(bytes(r, bb, 4));
  const Bytes want = concat(blocks);
  std::vector<Bytes> recv(static_cast<std::size_t>(p), Bytes(want.size(), 0xEE));
  for (int r = 0; r < p && in_place; ++r) {
    const auto i = static_cast<std::size_t>(r);
    std::copy(blocks[i].begin(), blocks[i].end(),
              recv[i].begin() + static_cast<std::ptrdiff_t>(i * bb));
  }
  GraphHarness h(p);
  h.add(0, [&](TaskGraph& g, int r) {
    const auto i = static_cast<std::size_t>(r);
    build_iallgather(g, in_place ? nullptr : ptr(blocks[i]), ptr(recv[i]), bb, Group{r, p}, algo);
  });
  ASSERT_TRUE(h.run(order));
  for (int r = 0; r < p; ++r)
    ASSERT_TRUE(same(recv[static_cast<std::size_t>(r)], want)) << "rank " << r;
}

void check_alltoall(int p, std::size_t bb, bool in_place, Order order,
                    std::optional<AlltoallAlgorithm> algo = {}) {
  SCOPED_TRACE(::testing::Message()
               << "alltoall P=" << p << " block=" << bb << (in_place ? " in place" : "")
               << (algo == AlltoallAlgorithm::bruck ? " bruck" : ""));
  // Block j of rank r's input is bytes(r * P + j): what r sends to j.
  std::vector<Bytes> send, want;
  for (int r = 0; r < p; ++r) {
    std::vector<Bytes> out, in;
    for (int j = 0; j < p; ++j) {
      out.push_back(bytes(r * p + j, bb, 5));
      in.push_back(bytes(j * p + r, bb, 5));
    }
    send.push_back(concat(out));
    want.push_back(concat(in));
  }
  std::vector<Bytes> recv = in_place
                                ? send
                                : std::vector<Bytes>(static_cast<std::size_t>(p),
                                                     Bytes(bb * static_cast<std::size_t>(p), 0xEE));
  GraphHarness h(p);
  h.add(0, [&](TaskGraph& g, int r) {
    const auto i = static_cast<std::size_t>(r);
    build_ialltoall(g, in_place ? nullptr : ptr(send[i]), ptr(recv[i]), bb, Group{r, p}, algo);
  });
  ASSERT_TRUE(h.run(order));
  for (int r = 0; r < p; ++r)
    ASSERT_TRUE(same(recv[static_cast<std::size_t>(r)], want[static_cast<std::size_t>(r)]))
        << "rank " << r;
}

void check_gather(int p, int root, std::size_t bb, bool in_place, Order order,
                  std::optional<RootedAlgorithm> algo = {}) {
  SCOPED_TRACE(::testing::Message() << "gather P=" << p << " root=" << root << " block=" << bb
                                    << (in_place ? " in place" : ""));
  std::vector<Bytes> blocks;
  for (int r = 0; r < p; ++r) blocks.push_back(bytes(r, bb, 6));
  const Bytes want = concat(blocks);
  Bytes recv(want.size(), 0xEE);
  if (in_place) {
    const auto at = static_cast<std::ptrdiff_t>(static_cast<std::size_t>(root) * bb);
    std::copy(blocks[static_cast<std::size_t>(root)].begin(),
              blocks[static_cast<std::size_t>(root)].end(), recv.begin() + at);
  }
  GraphHarness h(p);
  h.add(0, [&](TaskGraph& g, int r) {
    const bool at_root = r == root;
    const void* s = at_root && in_place ? nullptr : ptr(blocks[static_cast<std::size_t>(r)]);
    build_igather(g, s, at_root ? ptr(recv) : nullptr, bb, root, Group{r, p}, algo);
  });
  ASSERT_TRUE(h.run(order));
  ASSERT_TRUE(same(recv, want));
}

void check_scatter(int p, int root, std::size_t bb, bool in_place, Order order,
                   std::optional<RootedAlgorithm> algo = {}) {
  SCOPED_TRACE(::testing::Message() << "scatter P=" << p << " root=" << root << " block=" << bb
                                    << (in_place ? " in place" : ""));
  std::vector<Bytes> blocks;
  for (int r = 0; r < p; ++r) blocks.push_back(bytes(r, bb, 7));
  Bytes send = concat(blocks);
  const Bytes sent = send;
  std::vector<Bytes> recv(static_cast<std::size_t>(p), Bytes(bb, 0xEE));
  GraphHarness h(p);
  h.add(0, [&](TaskGraph& g, int r) {
    const bool at_root = r == root;
    void* out = at_root && in_place ? nullptr : ptr(recv[static_cast<std::size_t>(r)]);
    build_iscatter(g, at_root ? ptr(send) : nullptr, out, bb, root, Group{r, p}, algo);
  });
  ASSERT_TRUE(h.run(order));
  for (int r = 0; r < p; ++r) {
    if (r == root && in_place) continue;
    ASSERT_TRUE(same(recv[static_cast<std::size_t>(r)], blocks[static_cast<std::size_t>(r)]))
        << "rank " << r;
  }
  ASSERT_TRUE(same(send, sent)) << "root's send buffer";
}

void check_reduce_scatter_block(int p, std::size_t n, const Kernel& k, bool in_place, Order order,
                                std::optional<ReduceScatterAlgorithm> algo = {}) {
  SCOPED_TRACE(::testing::Message() << "reduce_scatter_block P=" << p << " count=" << n << " "
                                    << k.name << (in_place ? " in place" : ""));
  std::vector<Ints> in;
  for (int r = 0; r < p; ++r) in.push_back(ints(r, n * static_cast<std::size_t>(p), 8));
  const Ints all = fold(in, k);
  std::vector<Ints> send = in;
  std::vector<Ints> recv =
      in_place ? in : std::vector<Ints>(static_cast<std::size_t>(p), Ints(n, -7));
  GraphHarness h(p);
  h.add(0, [&](TaskGraph& g, int r) {
    const auto i = static_cast<std::size_t>(r);
    build_ireduce_scatter_block(g, in_place ? nullptr : ptr(send[i]), ptr(recv[i]), n, k.op,
                                Group{r, p}, algo);
  });
  ASSERT_TRUE(h.run(order));
  for (int r = 0; r < p; ++r) {
    const auto i = static_cast<std::size_t>(r);
    const auto first = all.begin() + static_cast<std::ptrdiff_t>(i * n);
    const Ints want(first, first + static_cast<std::ptrdiff_t>(n));
    const Ints got(recv[i].begin(), recv[i].begin() + static_cast<std::ptrdiff_t>(n));
    ASSERT_TRUE(same(got, want)) << "rank " << r;
    ASSERT_TRUE(same(send[i], in[i])) << "rank " << r << " send buffer";
  }
}

// --- sweeps: every algorithm forced, for every P; then the default choice ---

constexpr std::size_t kLargeBcast = 512 * 1024 + 3;
constexpr std::size_t kLargeAllreduce = 256 * 1024 / 4 + 9;  // int32 elements

// For the slow large cases: one root per P (varying), instead of every root.
int some_root(int p) { return p % 2 == 1 ? p / 2 : p - 1; }

TEST(Barrier, CompletesForEveryGroupSize) {
  for (int p = 1; p <= kMaxRanks; ++p) ASSERT_NO_FATAL_FAILURE(check_barrier(p, next_order())) << p;
}

TEST(Bcast, BinomialForEveryRoot) {
  for (int p = 1; p <= kMaxRanks; ++p)
    for (int root : roots(p, true))
      for (std::size_t n : {0, 1, 13, 1000})
        ASSERT_NO_FATAL_FAILURE(check_bcast(p, root, n, next_order(), BcastAlgorithm::binomial));
}

TEST(Bcast, SegmentedBinomial) {
  for (int p = 1; p <= kMaxRanks; ++p)
    for (int root : roots(p, false))
      ASSERT_NO_FATAL_FAILURE(
          check_bcast(p, root, 200'003, next_order(), BcastAlgorithm::binomial));
}

TEST(Bcast, ScatterAllgather) {
  for (int p = 1; p <= kMaxRanks; ++p)
    for (int root : p <= 4 ? roots(p, true) : std::vector<int>{some_root(p)})
      for (std::size_t n : {std::size_t{1}, std::size_t{7}, std::size_t{20'011}})
        ASSERT_NO_FATAL_FAILURE(
            check_bcast(p, root, n, next_order(), BcastAlgorithm::scatter_allgather));
}

TEST(Reduce, BinomialForEveryRoot) {
  for (int p = 1; p <= kMaxRanks; ++p)
    for (int root : roots(p, true))
      for (std::size_t n : {0, 1, 7, 33})
        for (const Kernel* k : kKernels)
          for (bool in_place : {false, true})
            ASSERT_NO_FATAL_FAILURE(
                check_reduce(p, root, n, *k, in_place, next_order(), ReduceAlgorithm::binomial));
}

TEST(Reduce, ReduceScatterGather) {
  for (int p = 1; p <= kMaxRanks; ++p)
    for (std::size_t n : {static_cast<std::size_t>(p), std::size_t{5003}})
      ASSERT_NO_FATAL_FAILURE(check_reduce(p, some_root(p), n, p % 2 ? kSum : kMax, p % 4 < 2,
                                           next_order(), ReduceAlgorithm::reduce_scatter_gather));
}

TEST(Allreduce, RecursiveDoubling) {
  for (int p = 1; p <= kMaxRanks; ++p)
    for (std::size_t n : {0, 1, 7, 33, 1000})
      for (const Kernel* k : kKernels)
        for (bool in_place : {false, true})
          ASSERT_NO_FATAL_FAILURE(check_allreduce(p, n, *k, in_place, next_order(),
                                                  AllreduceAlgorithm::recursive_doubling));
}

TEST(Allreduce, Rabenseifner) {
  for (int p = 1; p <= kMaxRanks; ++p)
    for (std::size_t n :
         {static_cast<std::size_t>(floor_pow2(p)), std::size_t{37}, std::size_t{5003}})
      for (const Kernel* k : kKernels)
        for (bool in_place : {false, true})
          ASSERT_NO_FATAL_FAILURE(
              check_allreduce(p, n, *k, in_place, next_order(), AllreduceAlgorithm::rabenseifner));
}

TEST(Allreduce, Ring) {
  for (int p = 1; p <= kMaxRanks; ++p)
    for (std::size_t n : {static_cast<std::size_t>(p), std::size_t{5003}})
      for (bool in_place : {false, true})
        ASSERT_NO_FATAL_FAILURE(check_allreduce(p, n, in_place ? kSum : kMax, in_place,
                                                next_order(), AllreduceAlgorithm::ring));
}

TEST(Allreduce, DefaultChoiceAtEverySize) {
  for (int p = 1; p <= kMaxRanks; ++p)
    for (std::size_t n : {std::size_t{3}, std::size_t{20'000}, kLargeAllreduce})
      ASSERT_NO_FATAL_FAILURE(check_allreduce(p, n, kSum, p % 2 == 0, next_order()));
}

TEST(Allgather, BruckAndRing) {
  for (int p = 1; p <= kMaxRanks; ++p)
    for (auto algo : {AllgatherAlgorithm::bruck, AllgatherAlgorithm::ring})
      for (std::size_t bb : {0, 1, 12, 1001})
        for (bool in_place : {false, true})
          ASSERT_NO_FATAL_FAILURE(check_allgather(p, bb, in_place, next_order(), algo));
}

TEST(Allgather, DefaultChoiceAtEverySize) {
  for (int p = 1; p <= kMaxRanks; ++p)
    for (std::size_t bb : {std::size_t{12}, std::size_t{70'001}})
      ASSERT_NO_FATAL_FAILURE(check_allgather(p, bb, p % 2 == 1, next_order()));
}

TEST(Alltoall, PairwiseWithWindow) {
  for (int p = 1; p <= kMaxRanks; ++p) {
    for (std::size_t bb : {0, 1, 24})
      for (bool in_place : {false, true})
        ASSERT_NO_FATAL_FAILURE(check_alltoall(p, bb, in_place, next_order()));
    // Large blocks: the small window.
    ASSERT_NO_FATAL_FAILURE(check_alltoall(p, 33'001, p % 2 == 1, next_order()));
  }
}

TEST(Alltoall, BruckForEveryGroupSize) {
  for (int p = 1; p <= kMaxRanks; ++p)
    for (std::size_t bb : {1, 24, 4'099})
      for (bool in_place : {false, true})
        ASSERT_NO_FATAL_FAILURE(
            check_alltoall(p, bb, in_place, next_order(), AlltoallAlgorithm::bruck));
}

TEST(Gather, BinomialAndLinearForEveryRoot) {
  for (int p = 1; p <= kMaxRanks; ++p)
    for (auto algo : {RootedAlgorithm::binomial, RootedAlgorithm::linear})
      for (int root : roots(p, true))
        for (std::size_t bb : {0, 1, 24, 2'000})
          for (bool in_place : {false, true})
            ASSERT_NO_FATAL_FAILURE(check_gather(p, root, bb, in_place, next_order(), algo));
}

TEST(Scatter, BinomialAndLinearForEveryRoot) {
  for (int p = 1; p <= kMaxRanks; ++p)
    for (auto algo : {RootedAlgorithm::binomial, RootedAlgorithm::linear})
      for (int root : roots(p, true))
        for (std::size_t bb : {0, 1, 24, 2'000})
          for (bool in_place : {false, true})
            ASSERT_NO_FATAL_FAILURE(check_scatter(p, root, bb, in_place, next_order(), algo));
}

TEST(ReduceScatterBlock, RecursiveHalvingAndRing) {
  for (int p = 1; p <= kMaxRanks; ++p)
    for (auto algo : {ReduceScatterAlgorithm::recursive_halving, ReduceScatterAlgorithm::ring})
      for (std::size_t n : {0, 1, 3, 100})
        for (const Kernel* k : kKernels)
          for (bool in_place : {false, true})
            ASSERT_NO_FATAL_FAILURE(
                check_reduce_scatter_block(p, n, *k, in_place, next_order(), algo));
}

// --- two collectives at once, and properties a wrong algorithm would break ---

// On one process no algorithm posts a message: liboverlap makes no duplicate of a
// communicator of one process (comm_context.cpp), so a message there would go to
// MPI_COMM_NULL. Every algorithm forced in turn, in place and not, small and large.
TEST(Collectives, OneRankPostsNothing) {
  std::vector<std::uint8_t> a(1 << 16, 1), b(1 << 16, 2);
  const Group one{0, 1};
  const ReduceKernel op = kSum.op;
  std::vector<std::function<void(TaskGraph&, const void*, std::size_t)>> builds;
  for (auto f : {AllreduceAlgorithm::recursive_doubling, AllreduceAlgorithm::rabenseifner,
                 AllreduceAlgorithm::ring})
    builds.push_back([&, f](TaskGraph& g, const void* in, std::size_t n) {
      build_iallreduce(g, in, b.data(), n / 4, op, one, f);
    });
  for (auto f : {BcastAlgorithm::binomial, BcastAlgorithm::scatter_allgather})
    builds.push_back([&, f](TaskGraph& g, const void*, std::size_t n) {
      build_ibcast(g, b.data(), n, 0, one, f);
    });
  for (auto f : {ReduceAlgorithm::binomial, ReduceAlgorithm::reduce_scatter_gather})
    builds.push_back([&, f](TaskGraph& g, const void* in, std::size_t n) {
      build_ireduce(g, in, b.data(), n / 4, op, 0, one, f);
    });
  for (auto f : {AllgatherAlgorithm::bruck, AllgatherAlgorithm::ring})
    builds.push_back([&, f](TaskGraph& g, const void* in, std::size_t n) {
      build_iallgather(g, in, b.data(), n, one, f);
    });
  for (auto f : {AlltoallAlgorithm::pairwise, AlltoallAlgorithm::bruck})
    builds.push_back([&, f](TaskGraph& g, const void* in, std::size_t n) {
      build_ialltoall(g, in, b.data(), n, one, f);
    });
  for (auto f : {RootedAlgorithm::binomial, RootedAlgorithm::linear}) {
    builds.push_back([&, f](TaskGraph& g, const void* in, std::size_t n) {
      build_igather(g, in, b.data(), n, 0, one, f);
    });
    builds.push_back([&, f](TaskGraph& g, const void* in, std::size_t n) {
      // At the root, in place means a null receive buffer; the blocks are in `send`.
      build_iscatter(g, in == nullptr ? b.data() : in, in == nullptr ? nullptr : b.data(), n, 0,
                     one, f);
    });
  }
  for (auto f : {ReduceScatterAlgorithm::recursive_halving, ReduceScatterAlgorithm::ring})
    builds.push_back([&, f](TaskGraph& g, const void* in, std::size_t n) {
      build_ireduce_scatter_block(g, in, b.data(), n / 4, op, one, f);
    });
  builds.push_back([&](TaskGraph& g, const void*, std::size_t) { build_ibarrier(g, one); });
  for (std::size_t i = 0; i < builds.size(); ++i) {
    for (std::size_t bytes : {std::size_t{4}, std::size_t{1} << 16}) {
      for (const void* in :
           {static_cast<const void*>(a.data()), static_cast<const void*>(nullptr)}) {
        testing::FakeNetwork net(1);
        TaskGraph g(net.endpoint(0, 0));
        builds[i](g, in, bytes);
        for (std::size_t t = 0; t < g.size(); ++t) {
          const auto kind = g.task(static_cast<progress::TaskId>(t)).kind;
          EXPECT_TRUE(kind != progress::TaskKind::send && kind != progress::TaskKind::recv)
              << "build " << i << ", " << bytes << " bytes" << (in == nullptr ? ", in place" : "")
              << ": task " << t << " is a message";
        }
      }
    }
  }
}

TEST(Collectives, SeveralInFlightOnTheSameRanksCompleteInterleaved) {
  for (int p : {5, 8, 13}) {
    SCOPED_TRACE(::testing::Message() << "P=" << p);
    const auto np = static_cast<std::size_t>(p);
    std::vector<Ints> in;
    for (int r = 0; r < p; ++r) in.push_back(ints(r, kLargeAllreduce, 9));
    const Ints sum = fold(in, kSum);
    std::vector<Ints> summed(np, Ints(kLargeAllreduce));
    const Bytes msg = bytes(1, kLargeBcast, 9);
    std::vector<Bytes> bcast(np, Bytes(kLargeBcast));
    bcast[1] = msg;
    std::vector<Ints> small = in;  // in-place recursive doubling on the first 5 elements
    GraphHarness h(p);
    h.add(0, [&](TaskGraph& g, int r) {
      const auto i = static_cast<std::size_t>(r);
      build_iallreduce(g, ptr(in[i]), ptr(summed[i]), kLargeAllreduce, kSum.op, Group{r, p});
    });
    h.add(1, [&](TaskGraph& g, int r) {
      build_ibcast(g, ptr(bcast[static_cast<std::size_t>(r)]), kLargeBcast, 1, Group{r, p});
    });
    h.add(2, [&](TaskGraph& g, int r) {
      build_iallreduce(g, nullptr, ptr(small[static_cast<std::size_t>(r)]), 5, kMax.op,
                       Group{r, p});
    });
    h.add(3, [&](TaskGraph& g, int r) { build_ibarrier(g, Group{r, p}); });
    ASSERT_TRUE(h.run(Order::jittered));
    const Ints top = fold(in, kMax);
    for (std::size_t i = 0; i < np; ++i) {
      ASSERT_TRUE(same(summed[i], sum)) << "rank " << i;
      ASSERT_TRUE(same(bcast[i], msg)) << "rank " << i;
      ASSERT_TRUE(std::equal(top.begin(), top.begin() + 5, small[i].begin())) << "rank " << i;
    }
  }
}

std::size_t bytes_sent(const testing::FakeNetwork& net, int rank) {
  std::size_t n = 0;
  for (const auto& p : net.log(rank)) n += p.is_send ? p.bytes : 0;
  return n;
}
int sends_posted(const testing::FakeNetwork& net, int rank) {
  const auto log = net.log(rank);
  return static_cast<int>(std::count_if(log.begin(), log.end(), [](auto& p) { return p.is_send; }));
}

TEST(Bcast, BinomialRootSendsCeilLog2PMessagesAndOthersReceiveOnce) {
  for (int p = 1; p <= kMaxRanks; ++p) {
    const int root = p / 2;
    std::vector<Bytes> buf(static_cast<std::size_t>(p), Bytes(100));
    GraphHarness h(p);
    h.add(0, [&](TaskGraph& g, int r) {
      build_ibcast(g, ptr(buf[static_cast<std::size_t>(r)]), 100, root, Group{r, p});
    });
    ASSERT_TRUE(h.run());
    EXPECT_EQ(sends_posted(h.net(), root), ceil_log2(p)) << "P=" << p;
    for (int r = 0; r < p; ++r) {
      if (r == root) continue;
      const auto log = h.net().log(r);
      EXPECT_EQ(std::count_if(log.begin(), log.end(), [](auto& x) { return !x.is_send; }), 1)
          << "P=" << p << " rank " << r;
    }
  }
}

TEST(Bcast, ScatterAllgatherSendsAtMostTwiceTheMessagePerRank) {
  for (int p : {8, 17}) {
    std::vector<Bytes> buf(static_cast<std::size_t>(p), Bytes(kLargeBcast));
    GraphHarness h(p);
    h.add(0, [&](TaskGraph& g, int r) {
      build_ibcast(g, ptr(buf[static_cast<std::size_t>(r)]), kLargeBcast, 0, Group{r, p},
                   BcastAlgorithm::scatter_allgather);
    });
    ASSERT_TRUE(h.run());
    // A binomial root would send ceil(log2 P) >= 3 whole messages. Here the root sends
    // (P - 1) / P of the message in the scatter and as much again around the ring.
    const double ideal = 2.0 * (p - 1) / p * static_cast<double>(kLargeBcast);
    EXPECT_NEAR(static_cast<double>(bytes_sent(h.net(), 0)), ideal, 2.0 * p) << "P=" << p;
    for (int r = 1; r < p; ++r) EXPECT_LE(bytes_sent(h.net(), r), 2 * kLargeBcast) << "P=" << p;
  }
}

TEST(Allreduce, RingSendsTwiceTheMessageTimesPMinusOneOverP) {
  for (int p : {3, 8, 17}) {
    const auto np = static_cast<std::size_t>(p);
    const std::size_t count = kLargeAllreduce;  // uneven blocks, above the ring threshold
    std::vector<Ints> in(np, Ints(count, 1)), out(np, Ints(count));
    GraphHarness h(p);
    h.add(0, [&](TaskGraph& g, int r) {
      const auto i = static_cast<std::size_t>(r);
      build_iallreduce(g, ptr(in[i]), ptr(out[i]), count, kSum.op, Group{r, p},
                       AllreduceAlgorithm::ring);
    });
    ASSERT_TRUE(h.run());
    const double ideal = 2.0 * (p - 1) / p * static_cast<double>(count * 4);
    for (int r = 0; r < p; ++r) {
      // Uneven blocks differ by one element from count / P.
      EXPECT_NEAR(static_cast<double>(bytes_sent(h.net(), r)), ideal, 2.0 * (p - 1) * 4)
          << "P=" << p << " rank " << r;
      EXPECT_EQ(sends_posted(h.net(), r), 2 * (p - 1));
    }
  }
}

TEST(Barrier, NoRankLeavesBeforeTheLastOneArrived) {
  for (int p : {2, 5, 8, 13}) {
    for (int late = 0; late < p; ++late) {
      testing::FakeNetwork net(p);
      std::vector<std::unique_ptr<TaskGraph>> gs;
      for (int r = 0; r < p; ++r) {
        gs.push_back(std::make_unique<TaskGraph>(net.endpoint(r, 0)));
        build_ibarrier(*gs.back(), Group{r, p});
      }
      for (int round = 0; round < 20; ++round)
        for (int r = 0; r < p; ++r)
          if (r != late) gs[static_cast<std::size_t>(r)]->advance();
      for (int r = 0; r < p; ++r)
        EXPECT_FALSE(gs[static_cast<std::size_t>(r)]->complete()) << "P=" << p << " rank " << r;
      for (int round = 0; round < 20; ++round)
        for (auto& g : gs) g->advance();
      for (auto& g : gs) EXPECT_TRUE(g->complete()) << "P=" << p << " late " << late;
    }
  }
}

TEST(Alltoall, KeepsAtMostAWindowOfStepsInFlight) {
  const int p = 17;
  const std::size_t bb = 40'000;  // large blocks: window of 4 steps
  const auto np = static_cast<std::size_t>(p);
  std::vector<Bytes> send(np, Bytes(bb * np)), recv(np, Bytes(bb * np));
  testing::FakeNetwork net(p);
  TaskGraph g(net.endpoint(0, 0));
  build_ialltoall(g, ptr(send[0]), ptr(recv[0]), bb, Group{0, p});
  g.advance();
  g.advance();  // nobody else runs: nothing can complete, nothing more may start
  EXPECT_EQ(sends_posted(net, 0), 4);
  EXPECT_EQ(net.log(0).size(), 8u);
}

TEST(Alltoall, BruckSendsCeilLog2PMessagesPerRank) {
  for (int p = 2; p <= kMaxRanks; ++p) {
    const auto np = static_cast<std::size_t>(p);
    std::vector<Bytes> send(np, Bytes(8 * np)), recv(np, Bytes(8 * np));
    GraphHarness h(p);
    h.add(0, [&](TaskGraph& g, int r) {
      const auto i = static_cast<std::size_t>(r);
      build_ialltoall(g, ptr(send[i]), ptr(recv[i]), 8, Group{r, p}, AlltoallAlgorithm::bruck);
    });
    ASSERT_TRUE(h.run());
    for (int r = 0; r < p; ++r)
      EXPECT_EQ(sends_posted(h.net(), r), ceil_log2(p)) << "P=" << p << " rank " << r;
  }
}

TEST(Schedule, WrapsTagsAndOrdersMessagesSharingAWireTag) {
  testing::FakeNetwork net(2);
  TaskGraph g(net.endpoint(0, 0));
  Schedule s(g);
  std::byte b{};
  const TaskId first = s.send(&b, 1, 1, 5);
  const TaskId other_peer = s.send(&b, 1, 0, 5 + kTagsPerCollective);
  const TaskId wrapped = s.send(&b, 1, 1, 5 + kTagsPerCollective);
  const TaskId recv = s.recv(&b, 1, 1, 5 + 2 * kTagsPerCollective);
  EXPECT_EQ(g.task(wrapped).tag, 5);
  EXPECT_EQ(g.task(first).waiting_on, 0u);
  EXPECT_EQ(g.task(other_peer).waiting_on, 0u);
  EXPECT_EQ(g.task(wrapped).waiting_on, 1u);  // after `first`, same peer and wire tag
  EXPECT_EQ(g.task(recv).waiting_on, 0u);     // receives are a separate channel
}
TEST(Allreduce, RabenseifnerSendsTwiceTheMessageTimesPMinusOneOverPInTwoLog2PSteps) {
  for (int p : {4, 8, 16}) {
    const auto np = static_cast<std::size_t>(p);
    const std::size_t count = 10'007;
    std::vector<Ints> in(np, Ints(count, 1)), out(np, Ints(count));
    GraphHarness h(p);
    h.add(0, [&](TaskGraph& g, int r) {
      const auto i = static_cast<std::size_t>(r);
      build_iallreduce(g, ptr(in[i]), ptr(out[i]), count, kSum.op, Group{r, p},
                       AllreduceAlgorithm::rabenseifner);
    });
    ASSERT_TRUE(h.run(Order::jittered));
    const double ideal = 2.0 * (p - 1) / p * static_cast<double>(count * 4);
    for (int r = 0; r < p; ++r) {
      EXPECT_NEAR(static_cast<double>(bytes_sent(h.net(), r)), ideal, 4.0 * p * 4)
          << "P=" << p << " rank " << r;
      EXPECT_EQ(sends_posted(h.net(), r), 2 * ceil_log2(p));
      EXPECT_TRUE(std::all_of(out[static_cast<std::size_t>(r)].begin(),
                              out[static_cast<std::size_t>(r)].end(),
                              [p](std::int32_t v) { return v == p; }));
    }
  }
}

// MAX as a C compiler writes it: with a NaN the result depends on the operand order.
void max_f64(const void* in, void* inout, std::size_t n) {
  const auto* a = static_cast<const double*>(in);
  auto* b = static_cast<double*>(inout);
  for (std::size_t i = 0; i < n; ++i) b[i] = a[i] > b[i] ? a[i] : b[i];
}
void max_f64_reversed(const void* in, void* inout, std::size_t n) {
  const auto* a = static_cast<const double*>(in);
  auto* b = static_cast<double*>(inout);
  for (std::size_t i = 0; i < n; ++i) b[i] = b[i] > a[i] ? b[i] : a[i];
}

TEST(Allreduce, EveryRankGetsTheSameBitsWithNaNsAndSignedZeros) {
  const ReduceKernel op{max_f64, max_f64_reversed, 8};
  const double specials[] = {std::nan("1"), std::nan("2"), -0.0, 0.0, 1.0, -1.0};
  for (auto algo : {AllreduceAlgorithm::recursive_doubling, AllreduceAlgorithm::rabenseifner,
                    AllreduceAlgorithm::ring}) {
    for (int p = 2; p <= 9; ++p) {
      SCOPED_TRACE(::testing::Message() << "P=" << p << " algorithm " << static_cast<int>(algo));
      const auto np = static_cast<std::size_t>(p);
      const std::size_t n = 64;
      std::vector<std::vector<double>> in(np, std::vector<double>(n)), out = in;
      for (std::size_t r = 0; r < np; ++r)
        for (std::size_t i = 0; i < n; ++i) in[r][i] = specials[(i + r * 7 + i / 6) % 6];
      GraphHarness h(p);
      h.add(0, [&](TaskGraph& g, int r) {
        const auto i = static_cast<std::size_t>(r);
        build_iallreduce(g, in[i].data(), out[i].data(), n, op, Group{r, p}, algo);
      });
      ASSERT_TRUE(h.run(next_order()));
      for (std::size_t r = 1; r < np; ++r)
        ASSERT_EQ(std::memcmp(out[r].data(), out[0].data(), n * sizeof(double)), 0)
            << "rank " << r << " differs from rank 0";
    }
  }
}

TEST(Allreduce, RecursiveDoublingNeedsOneTemporaryAtATime) {
  const int p = 8;
  const std::size_t n = 4096;  // ints
  const auto np = static_cast<std::size_t>(p);
  std::vector<Ints> in(np, Ints(n, 1)), out(np, Ints(n));
  testing::FakeNetwork net(p);
  std::vector<std::unique_ptr<TaskGraph>> gs;
  for (int r = 0; r < p; ++r) {
    gs.push_back(std::make_unique<TaskGraph>(net.endpoint(r, 0)));
    build_iallreduce(*gs.back(), ptr(in[static_cast<std::size_t>(r)]),
                     ptr(out[static_cast<std::size_t>(r)]), n, kSum.op, Group{r, p},
                     AllreduceAlgorithm::recursive_doubling);
    EXPECT_EQ(gs.back()->scratch_bytes(), 0u) << "nothing allocated before it starts";
  }
  std::size_t peak = 0;
  for (int round = 0; round < 100; ++round) {
    bool all = true;
    for (auto& g : gs) {
      g->advance();
      peak = std::max(peak, g->scratch_bytes());
      all = all && g->complete();
    }
    if (all) break;
  }
  for (auto& g : gs) ASSERT_TRUE(g->complete());
  EXPECT_EQ(peak, n * 4) << "log2 P = 3 rounds share one temporary vector";
  EXPECT_TRUE(std::all_of(out[3].begin(), out[3].end(), [](std::int32_t v) { return v == 8; }));
}

}  // namespace
}  // namespace overlap::collectives
