// The algorithm choice: the thresholds the algorithms had at small P stay where they were,
// and the latency-bound choices disappear at large P.
#include "collectives/cost_model.hpp"

#include <gtest/gtest.h>

namespace overlap::collectives {
namespace {

constexpr std::size_t KiB = 1024;
constexpr std::size_t MiB = 1024 * KiB;

TEST(CostModel, TwoRanksAlwaysUseTheOneExchangeAlgorithms) {
  for (std::size_t bytes : {std::size_t{8}, 64 * KiB, 16 * MiB}) {
    EXPECT_EQ(choose_allreduce(bytes, bytes / 8, 2), AllreduceAlgorithm::recursive_doubling);
    EXPECT_EQ(choose_bcast(bytes, 2), BcastAlgorithm::binomial);
    EXPECT_EQ(choose_reduce(bytes, bytes / 8, 2), ReduceAlgorithm::binomial);
    EXPECT_EQ(choose_gather(bytes, 2), RootedAlgorithm::linear);
    EXPECT_EQ(choose_allgather(bytes, 2), AllgatherAlgorithm::ring);  // no copies
  }
}

TEST(CostModel, AtFourRanksTheOldThresholdsHold) {
  // Recursive doubling below 256 KiB.
  EXPECT_EQ(choose_allreduce(200 * KiB, 200 * KiB / 8, 4), AllreduceAlgorithm::recursive_doubling);
  EXPECT_NE(choose_allreduce(300 * KiB, 300 * KiB / 8, 4), AllreduceAlgorithm::recursive_doubling);
  // Scatter + allgather broadcast from above 128 KiB (the binomial root's link carries the
  // message once per child: 2x at P = 4, against about 1.5x for scatter + allgather).
  EXPECT_EQ(choose_bcast(64 * KiB, 4), BcastAlgorithm::binomial);
  EXPECT_EQ(choose_bcast(128 * KiB, 4), BcastAlgorithm::binomial);
  EXPECT_EQ(choose_bcast(256 * KiB, 4), BcastAlgorithm::scatter_allgather);
  EXPECT_EQ(choose_bcast(1 * MiB, 4), BcastAlgorithm::scatter_allgather);
  // Ring allgather from 128 KiB in total.
  EXPECT_EQ(choose_allgather(16 * KiB, 4), AllgatherAlgorithm::bruck);
  EXPECT_EQ(choose_allgather(64 * KiB, 4), AllgatherAlgorithm::ring);
}

TEST(CostModel, LargeBroadcastsScatterWhateverTheSegments) {
  // P = 8, 1 MiB on 1 Gbit/s links (measured latency 8 us: about 1 KiB): the binomial root
  // sends 3 MiB, scatter + allgather about 1.75 MiB per rank. Segmenting the tree's message
  // (16 segments here) does not shrink what the root's link carries.
  EXPECT_EQ(choose_bcast(1 * MiB, 8, 1100.0), BcastAlgorithm::scatter_allgather);
  EXPECT_EQ(choose_bcast(1 * MiB, 8), BcastAlgorithm::scatter_allgather);
  EXPECT_EQ(choose_bcast(16 * MiB, 16), BcastAlgorithm::scatter_allgather);
  // A small message is latency-bound: the tree's log2 P steps beat the ring's P - 1.
  EXPECT_EQ(choose_bcast(1 * KiB, 8, 1100.0), BcastAlgorithm::binomial);
}

TEST(CostModel, ManyRanksAvoidLatencyBoundRings) {
  // The example of the issue: 256 KiB at P = 1024 would be 256-byte ring blocks.
  EXPECT_EQ(choose_allreduce(256 * KiB, 256 * KiB / 8, 1024), AllreduceAlgorithm::rabenseifner);
  EXPECT_EQ(choose_bcast(512 * KiB, 1024), BcastAlgorithm::binomial);
  EXPECT_EQ(choose_allgather(128, 1024), AllgatherAlgorithm::bruck);
  EXPECT_EQ(choose_reduce_scatter_block(256, 1024), ReduceScatterAlgorithm::recursive_halving);
  EXPECT_EQ(choose_reduce(512 * KiB, 512 * KiB / 8, 1024), ReduceAlgorithm::binomial);
  EXPECT_EQ(choose_gather(16 * KiB, 1024), RootedAlgorithm::binomial);
  // Large blocks per rank bring the ring back where P is not a power of two.
  EXPECT_EQ(choose_allreduce(1024 * MiB, 1024 * MiB / 8, 1000), AllreduceAlgorithm::ring);
}

TEST(CostModel, SmallVectorsUseRecursiveDoublingAndTooFewElementsNeverSplit) {
  EXPECT_EQ(choose_allreduce(64, 8, 1024), AllreduceAlgorithm::recursive_doubling);
  // Fewer elements than the power of two of ranks: nothing to split into blocks.
  EXPECT_EQ(choose_allreduce(64 * MiB, 100, 1024), AllreduceAlgorithm::recursive_doubling);
}

}  // namespace
}  // namespace overlap::collectives
