// The adaptive policy's pure parts: which runs go as which messages for recorded ready
// orders, the descriptor check, and the lock-free queue and combining poster under threads.
#include "partitioned/adaptive_runs.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <climits>
#include <numeric>
#include <random>
#include <thread>

namespace overlap::partitioned {
namespace {

// (Inside a TEST body `Run` would name testing::Test::Run.)
using AdaptiveRun = Run;
using Runs = std::vector<AdaptiveRun>;

TEST(GroupRuns, MaximalRunsOfConsecutivePartitions) {
  const std::vector<std::uint32_t> scattered{1, 3, 4, 5, 9};
  EXPECT_EQ(group_runs(scattered, 100, 0), (Runs{{1, 1}, {3, 3}, {9, 1}}));
  std::vector<std::uint32_t> all(64);
  std::iota(all.begin(), all.end(), 0u);
  EXPECT_EQ(group_runs(all, 100, 0), (Runs{{0, 64}}));
  EXPECT_TRUE(group_runs({}, 100, 0).empty());
}

TEST(GroupRuns, BoundedInBytes) {
  const std::vector<std::uint32_t> five{0, 1, 2, 3, 4};
  // 250 bytes hold two 100-byte partitions.
  EXPECT_EQ(group_runs(five, 100, 250), (Runs{{0, 2}, {2, 2}, {4, 1}}));
  // A partition larger than the bound still goes, alone.
  EXPECT_EQ(group_runs(five, 100, 50), (Runs{{0, 1}, {1, 1}, {2, 1}, {3, 1}, {4, 1}}));
  // Zero-byte partitions never reach a bound.
  EXPECT_EQ(group_runs(five, 0, 1), (Runs{{0, 5}}));
  // No message beyond MPI's int count, bound or not.
  const std::uint64_t big = 1ULL << 30;
  EXPECT_EQ(group_runs(five, big, 0), (Runs{{0, 1}, {1, 1}, {2, 1}, {3, 1}, {4, 1}}));
  EXPECT_EQ(group_runs(five, 1000, 0), (Runs{{0, 5}}));
}

// Replays a recorded ready order through the queue: `cuts` partitions become ready, then
// the poster takes them, and so on. Returns the messages in posting order.
std::vector<Runs> replay(const std::vector<std::uint32_t>& order,
                         const std::vector<std::size_t>& cuts, std::uint64_t partition_bytes,
                         std::uint64_t max_bytes) {
  AdaptiveBatcher batcher(static_cast<std::uint32_t>(order.size()), partition_bytes, max_bytes);
  std::vector<Runs> messages;
  std::size_t next = 0;
  for (const std::size_t n : cuts) {
    for (std::size_t k = 0; k < n; ++k) batcher.push(order[next++]);
    batcher.post_queued([&](std::span<const AdaptiveRun> runs) {
      messages.emplace_back(runs.begin(), runs.end());
    });
  }
  return messages;
}

TEST(AdaptiveBatcher, RecordedReadyOrders) {
  // Readied one at a time: each partition alone, in ready order (as under `none`).
  EXPECT_EQ(replay({2, 0, 1}, {1, 1, 1}, 8, 0), (std::vector<Runs>{{{2, 1}}, {{0, 1}}, {{1, 1}}}));
  // A burst of 3 while 5 was being posted, then the rest: runs by batch.
  EXPECT_EQ(replay({5, 3, 4, 0, 2, 1, 7, 6}, {1, 3, 4}, 8, 0),
            (std::vector<Runs>{{{5, 1}}, {{0, 1}, {3, 2}}, {{1, 2}, {6, 2}}}));
  // All at once (Pready_range): one message, or pieces of at most 16 bytes.
  EXPECT_EQ(replay({0, 1, 2, 3, 4, 5}, {6}, 8, 0), (std::vector<Runs>{{{0, 6}}}));
  EXPECT_EQ(replay({0, 1, 2, 3, 4, 5}, {6}, 8, 16), (std::vector<Runs>{{{0, 2}, {2, 2}, {4, 2}}}));
  // A descriptor carries at most kRunsPerDescriptor runs: every other of 2 x that many
  // partitions ready in one batch makes kRunsPerDescriptor + 1 runs, two descriptors.
  std::vector<std::uint32_t> order;
  for (std::uint32_t p = 0; p < 2 * kRunsPerDescriptor + 2; p += 2) order.push_back(p);
  for (std::uint32_t p = 1; p < 2 * kRunsPerDescriptor + 2; p += 2) order.push_back(p);
  const auto messages = replay(order, {kRunsPerDescriptor + 1, kRunsPerDescriptor + 1}, 1, 1);
  ASSERT_EQ(messages.size(), 4u);
  EXPECT_EQ(messages[0].size(), kRunsPerDescriptor);
  EXPECT_EQ(messages[1], (Runs{{2 * kRunsPerDescriptor, 1}}));
}

// Random ready orders and batches: every partition travels once, runs are consecutive,
// within the bound, and maximal within their batch (neighbours only where the bound cut).
TEST(AdaptiveBatcher, RandomOrdersCoverEveryPartitionOnce) {
  std::mt19937_64 rng(12345);
  for (int trial = 0; trial < 300; ++trial) {
    const auto parts = static_cast<std::uint32_t>(1 + rng() % 300);
    const std::uint64_t bytes = rng() % 3 == 0 ? 0 : 1 + rng() % 100;
    const std::uint64_t bound = rng() % 2 == 0 ? 0 : 1 + rng() % 400;
    std::vector<std::uint32_t> order(parts);
    std::iota(order.begin(), order.end(), 0u);
    std::shuffle(order.begin(), order.end(), rng);
    std::vector<std::size_t> cuts;
    for (std::size_t left = parts; left > 0;) {
      const std::size_t n = std::min<std::size_t>(left, 1 + rng() % 20);
      cuts.push_back(n);
      left -= n;
    }
    const std::uint64_t per_run =
        bytes == 0 ? UINT32_MAX
                   : std::max<std::uint64_t>(1, (bound == 0 ? INT_MAX : bound) / bytes);
    std::vector<int> seen(parts, 0);
    for (const Runs& message : replay(order, cuts, bytes, bound)) {
      for (std::size_t i = 0; i < message.size(); ++i) {
        const AdaptiveRun& r = message[i];
        ASSERT_GE(r.count, 1u);
        EXPECT_LE(r.count, per_run);
        for (std::uint32_t p = r.first; p < r.first + r.count; ++p) ++seen[p];
        if (i + 1 < message.size() && message[i + 1].first == r.first + r.count) {
          EXPECT_EQ(r.count, per_run) << "adjacent runs in one batch below the bound";
        }
      }
    }
    EXPECT_TRUE(std::all_of(seen.begin(), seen.end(), [](int n) { return n == 1; }))
        << "trial " << trial;
  }
}

// Many threads readying at once: nothing is lost or posted twice, however the posting
// thread and the others interleave (the combining protocol), over several epochs.
TEST(AdaptiveBatcher, ConcurrentReadyLosesNothing) {
  constexpr std::uint32_t kParts = 4000;
  constexpr int kThreads = 4;
  AdaptiveBatcher batcher(kParts, 4, 0);
  for (int epoch = 0; epoch < 5; ++epoch) {
    batcher.reset();
    // Plain counters: post() must run on one thread at a time (TSan would see a race).
    std::vector<int> seen(kParts, 0);
    std::atomic<int> posting{0};
    std::atomic<bool> overlapped{false};
    auto post = [&](std::span<const AdaptiveRun> runs) {
      if (posting.fetch_add(1) != 0) overlapped = true;
      for (const AdaptiveRun& r : runs)
        for (std::uint32_t p = r.first; p < r.first + r.count; ++p) ++seen[p];
      posting.fetch_sub(1);
    };
    std::vector<std::thread> pool;
    for (int t = 0; t < kThreads; ++t) {
      pool.emplace_back([&, t] {
        for (std::uint32_t p = static_cast<std::uint32_t>(t); p < kParts; p += kThreads) {
          batcher.push(p);
          batcher.post_queued(post);
        }
      });
    }
    for (auto& th : pool) th.join();
    EXPECT_FALSE(overlapped.load()) << "two threads posted at once";
    for (std::uint32_t p = 0; p < kParts; ++p) ASSERT_EQ(seen[p], 1) << "partition " << p;
  }
}

TEST(Descriptor, AcceptsRunsOnceAndNamesWhatIsWrong) {
  std::vector<std::uint8_t> claimed(10, 0);
  Runs runs;
  std::string error;
  const std::uint32_t first[] = {0, 3, 7, 2};
  ASSERT_TRUE(accept_descriptor(first, 10, 8, claimed, runs, error)) << error;
  EXPECT_EQ(runs, (Runs{{0, 3}, {7, 2}}));
  EXPECT_EQ(std::count(claimed.begin(), claimed.end(), 1), 5);
  const std::uint32_t again[] = {2, 2};
  EXPECT_FALSE(accept_descriptor(again, 10, 8, claimed, runs, error));
  EXPECT_NE(error.find("partition 2 arrives twice"), std::string::npos) << error;

  auto refused = [&](std::span<const std::uint32_t> words, std::uint64_t partition_bytes,
                     const std::string& needle) {
    std::vector<std::uint8_t> fresh(10, 0);
    std::string e;
    EXPECT_FALSE(accept_descriptor(words, 10, partition_bytes, fresh, runs, e));
    EXPECT_NE(e.find(needle), std::string::npos) << e;
  };
  const std::uint32_t beyond[] = {8, 3};
  refused(beyond, 8, "run of 3 partitions from partition 8 is not inside the 10");
  const std::uint32_t empty_run[] = {4, 0};
  refused(empty_run, 8, "run of 0 partitions");
  const std::uint32_t odd[] = {1, 2, 3};
  refused(odd, 8, "descriptor of 3 words");
  refused({}, 8, "descriptor of 0 words");
  const std::uint32_t huge[] = {0, 4};
  refused(huge, 1ULL << 30, "exceeds 2147483647 bytes");
}

}  // namespace
}  // namespace overlap::partitioned
