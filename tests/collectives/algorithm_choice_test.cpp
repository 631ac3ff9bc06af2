// OVERLAP_ALGORITHMS: parsing (each bad entry named with what is allowed), forced
// algorithms applied only where they are defined, and the names OVX_Algorithm reports.
#include "collectives/algorithm_choice.hpp"

#include <gtest/gtest.h>

namespace overlap::collectives {
namespace {

TEST(AlgorithmChoice, ParsesEveryCollectiveAndRefusesWithTheAllowedNames) {
  const auto ok = parse_forced_algorithms(
      "allreduce=ring,bcast=scatter_allgather,reduce=reduce_scatter_gather,allgather=bruck,"
      "reduce_scatter_block=ring,gather=binomial,scatter=linear,alltoall=pairwise,"
      "barrier=dissemination,");
  ASSERT_EQ(ok.error, "");
  EXPECT_EQ(ok.forced.allreduce, AllreduceAlgorithm::ring);
  EXPECT_EQ(ok.forced.bcast, BcastAlgorithm::scatter_allgather);
  EXPECT_EQ(ok.forced.reduce, ReduceAlgorithm::reduce_scatter_gather);
  EXPECT_EQ(ok.forced.allgather, AllgatherAlgorithm::bruck);
  EXPECT_EQ(ok.forced.reduce_scatter_block, ReduceScatterAlgorithm::ring);
  EXPECT_EQ(ok.forced.gather, RootedAlgorithm::binomial);
  EXPECT_EQ(ok.forced.scatter, RootedAlgorithm::linear);
  EXPECT_EQ(parse_forced_algorithms("").error, "");
  EXPECT_FALSE(parse_forced_algorithms("").forced.allreduce.has_value());

  EXPECT_EQ(parse_forced_algorithms("allreduce=tree").error,
            "OVERLAP_ALGORITHMS: 'tree' is not an algorithm of allreduce (allowed: "
            "recursive_doubling, rabenseifner, ring)");
  EXPECT_EQ(parse_forced_algorithms("ring").error,
            "OVERLAP_ALGORITHMS: 'ring' is not COLLECTIVE=ALGORITHM (e.g. allreduce=ring)");
  EXPECT_EQ(parse_forced_algorithms("alltoall=bruck").forced.alltoall, AlltoallAlgorithm::bruck);
  EXPECT_EQ(parse_forced_algorithms("alltoall=ring").error,
            "OVERLAP_ALGORITHMS: 'ring' is not an algorithm of alltoall (allowed: pairwise, "
            "bruck)");
  EXPECT_NE(parse_forced_algorithms("barrier=tree").error.find("'barrier=tree'"),
            std::string::npos);
  EXPECT_NE(parse_forced_algorithms("allgatherv=ring").error.find("'allgatherv=ring'"),
            std::string::npos);
}

TEST(AlgorithmChoice, ForcedWhereDefinedElseTheModelChooses) {
  Choice c;
  ForcedAlgorithms& f = c.forced;
  f.allreduce = AllreduceAlgorithm::ring;
  EXPECT_EQ(allreduce_algorithm(8 * 1000, 1000, 6, c), AllreduceAlgorithm::ring);
  // Fewer elements than ranks: no ring; the model's choice.
  EXPECT_EQ(allreduce_algorithm(8 * 5, 5, 6, c), choose_allreduce(8 * 5, 5, 6));
  f.allreduce = AllreduceAlgorithm::rabenseifner;
  EXPECT_EQ(allreduce_algorithm(8 * 4, 4, 6, c), AllreduceAlgorithm::rabenseifner);
  EXPECT_EQ(allreduce_algorithm(8 * 3, 3, 6, c), choose_allreduce(8 * 3, 3, 6));
  f.reduce = ReduceAlgorithm::reduce_scatter_gather;
  EXPECT_EQ(reduce_algorithm(8 * 7, 7, 7, c), ReduceAlgorithm::reduce_scatter_gather);
  EXPECT_EQ(reduce_algorithm(8 * 6, 6, 7, c), ReduceAlgorithm::binomial);
  f.bcast = BcastAlgorithm::scatter_allgather;
  EXPECT_EQ(bcast_algorithm(1, 5, c), BcastAlgorithm::scatter_allgather);
  // Not forced: the model.
  const Choice none;
  for (std::size_t bytes : {std::size_t{8}, std::size_t{1} << 20})
    for (int p : {2, 3, 8, 1000}) {
      EXPECT_EQ(allreduce_algorithm(bytes, bytes / 8, p, none),
                choose_allreduce(bytes, bytes / 8, p));
      EXPECT_EQ(bcast_algorithm(bytes, p, none), choose_bcast(bytes, p));
      EXPECT_EQ(allgather_algorithm(bytes, p, none), choose_allgather(bytes, p));
      EXPECT_EQ(gather_algorithm(bytes, p, none), choose_gather(bytes, p));
    }
}

TEST(AlgorithmChoice, NamesWhatRuns) {
  const Choice none;
  EXPECT_STREQ(algorithm_name("allreduce", 8, 1, 4, none), "recursive_doubling");
  EXPECT_STREQ(algorithm_name("allreduce", 16 << 20, 2 << 20, 4, none), "rabenseifner");
  EXPECT_STREQ(algorithm_name("alltoall", 1024, 1024, 4, none), "pairwise");
  EXPECT_STREQ(algorithm_name("barrier", 0, 0, 4, none), "dissemination");
  EXPECT_STREQ(algorithm_name("bcast", 8, 8, 1, none), "local");
  EXPECT_STREQ(algorithm_name("gather", 0, 0, 4, none), "none");
  EXPECT_EQ(algorithm_name("allgatherv", 8, 8, 4, none), nullptr);
  Choice c;
  c.forced.allgather = AllgatherAlgorithm::bruck;
  c.forced.scatter = RootedAlgorithm::binomial;
  c.forced.alltoall = AlltoallAlgorithm::bruck;
  EXPECT_STREQ(algorithm_name("allgather", 1 << 20, 1 << 20, 4, c), "bruck");
  EXPECT_STREQ(algorithm_name("scatter", 8, 8, 2, c), "binomial");
  EXPECT_STREQ(algorithm_name("alltoall", 8, 8, 3, c), "bruck");
}

TEST(AlgorithmChoice, TheModelsLatencyMovesTheChoice) {
  // At P = 4 a 64 KiB broadcast is binomial with the default latency (64 KiB), but a
  // network whose latency is worth only 1 KiB scatters and gathers; the same for a 512 KiB
  // allgather that a huge latency keeps on Bruck's fewer steps.
  Choice cheap, dear;
  cheap.latency_bytes = 1024;
  dear.latency_bytes = 16 << 20;
  EXPECT_STREQ(algorithm_name("bcast", 64 << 10, 64 << 10, 4, Choice{}), "binomial");
  EXPECT_STREQ(algorithm_name("bcast", 64 << 10, 64 << 10, 4, cheap), "scatter_allgather");
  EXPECT_STREQ(algorithm_name("allgather", 512 << 10, 512 << 10, 4, Choice{}), "ring");
  EXPECT_STREQ(algorithm_name("allgather", 512 << 10, 512 << 10, 4, dear), "bruck");
  // Bruck's alltoall pays off where pairwise's P - 1 messages cannot hide their latency.
  EXPECT_STREQ(algorithm_name("alltoall", 8, 1, 4, Choice{}), "pairwise");
  EXPECT_STREQ(algorithm_name("alltoall", 8, 1, 1024, Choice{}), "bruck");
}

}  // namespace
}  // namespace overlap::collectives
