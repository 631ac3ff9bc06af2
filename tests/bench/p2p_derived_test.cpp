#include "bench/p2p/p2p_derived.hpp"

#include <gtest/gtest.h>

namespace overlap::bench {
namespace {

P2pPoint valid_point(long bytes, double t_iter) {
  P2pPoint p;
  p.valid = true;
  p.msg_bytes = bytes;
  p.t_iter = measure::Spread{};
  p.t_iter->median = t_iter;
  p.t_pingpong_s = 1.0;
  return p;
}

bool has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

TEST(P2pDerived, DiscardReasonNamesTheEmptySet) {
  EXPECT_EQ(p2p_discard_reason(20, false, false), "");
  const std::string with = p2p_discard_reason(20, true, false);
  EXPECT_TRUE(has(with, "all 20 round trips with computation")) << with;
  EXPECT_FALSE(has(with, "without")) << with;
  const std::string bare = p2p_discard_reason(20, false, true);
  EXPECT_TRUE(has(bare, "without computation (t_pingpong)")) << bare;
  EXPECT_FALSE(has(bare, "with computation")) << bare;
  const std::string both = p2p_discard_reason(7, true, true);
  EXPECT_TRUE(has(both, "all 7")) << both;
  EXPECT_TRUE(has(both, "t_iter")) << both;
  EXPECT_TRUE(has(both, "t_pingpong")) << both;
}

TEST(P2pDerived, ComputesThePapersNumbers) {
  P2pPoint p = valid_point(65536, 3.0);
  derive_p2p_numbers(p, {2.0, 2.0, 4.0, 0.8, 20, false, 0});
  ASSERT_TRUE(p.optimal_s && p.overlap_ratio && p.ratio_to_optimal && p.speedup_vs_blocking);
  EXPECT_DOUBLE_EQ(*p.optimal_s, 2.0);
  EXPECT_DOUBLE_EQ(*p.overlap_ratio, 0.5);  // (2 + 2 - 3) / 2
  EXPECT_DOUBLE_EQ(*p.ratio_to_optimal, 1.5);
  EXPECT_DOUBLE_EQ(*p.speedup_vs_blocking, 4.0 / 3.0);
  ASSERT_TRUE(p.pingpong_vs_pmpi);
  EXPECT_DOUBLE_EQ(*p.pingpong_vs_pmpi, 0.8);  // measured alternating, passed on
  EXPECT_TRUE(p.null_reasons.empty());
}

// The layer's cost side by side: on blocking and overlap-run points only; other
// implementations have no such ratio, and a missing one says why.
TEST(P2pDerived, PingPongOverPmpiOnlyForTheBlockingCode) {
  P2pPoint under = valid_point(1024, 3.0);
  under.impl = P2pImpl::overlap_run;
  derive_p2p_numbers(under, {2.0, 2.0, std::nullopt, 1.02, 20, true, 65536});
  ASSERT_TRUE(under.pingpong_vs_pmpi);
  EXPECT_NEAR(*under.pingpong_vs_pmpi, 1.02, 1e-12);
  for (P2pImpl impl : {P2pImpl::blocking_pmpi, P2pImpl::nonblocking}) {
    P2pPoint other = valid_point(1024, 3.0);
    other.impl = impl;
    derive_p2p_numbers(other, {2.0, 2.0, 4.0, 0.5, 20, false, 0});
    EXPECT_FALSE(other.pingpong_vs_pmpi || other.null_reasons.count("pingpong_vs_pmpi"));
  }
  P2pPoint alone = valid_point(1024, 3.0);
  derive_p2p_numbers(alone, {2.0, 2.0, 4.0, std::nullopt, 20, false, 0});
  EXPECT_FALSE(alone.pingpong_vs_pmpi);
  EXPECT_TRUE(
      has(alone.null_reasons.at("pingpong_vs_pmpi"), "blocking-pmpi was not measured beside it"));
}

TEST(P2pDerived, LatencyIsHalfThePingPongAndBandwidthTheBytesOverIt) {
  P2pPoint p = valid_point(1 << 20, 3.0);
  p.t_pingpong_s = 0.004;
  derive_p2p_numbers(p, {2.0, 2.0, 4.0, std::nullopt, 20, false, 0});
  ASSERT_TRUE(p.latency_s && p.bandwidth_Bps);
  EXPECT_DOUBLE_EQ(*p.latency_s, 0.002);
  EXPECT_DOUBLE_EQ(*p.bandwidth_Bps, (1 << 20) / 0.002);
  P2pPoint none = valid_point(1 << 20, 3.0);  // no ping-pong time: both null, with why
  none.t_pingpong_s.reset();
  derive_p2p_numbers(none, {2.0, 2.0, 4.0, std::nullopt, 20, false, 0});
  EXPECT_FALSE(none.latency_s || none.bandwidth_Bps);
  EXPECT_TRUE(has(none.null_reasons["latency_s"], "t_pingpong_s"));
  EXPECT_TRUE(has(none.null_reasons["bandwidth_Bps"], "t_pingpong_s"));
}

// Every MPI-only round trip discarded: everything t_comm feeds is null, each with why.
TEST(P2pDerived, NoCommTimeNullsWhatItFeedsWithReasons) {
  P2pPoint p = valid_point(65536, 3.0);
  derive_p2p_numbers(p, {std::nullopt, 2.0, 4.0, std::nullopt, 20, false, 0});
  EXPECT_FALSE(p.t_comm_s || p.optimal_s || p.overlap_ratio || p.ratio_to_optimal);
  for (const char* f : {"t_comm_s", "optimal_s", "overlap_ratio", "ratio_to_optimal"}) {
    ASSERT_TRUE(p.null_reasons.count(f)) << f;
    EXPECT_TRUE(has(p.null_reasons.at(f), "all 20 of MPI's own round trips")) << f;
  }
  EXPECT_TRUE(p.speedup_vs_blocking);  // not fed by t_comm
}

// overlap-run deferred nothing: its comparisons are null, naming --min-size when the size
// is below it; the measured times stay.
TEST(P2pDerived, NothingDeferredNullsTheComparisons) {
  P2pPoint small = valid_point(1024, 3.0);
  small.impl = P2pImpl::overlap_run;
  small.deferred_calls = 0;
  derive_p2p_numbers(small, {2.0, 2.0, std::nullopt, std::nullopt, 20, true, 65536});
  EXPECT_FALSE(small.overlap_ratio || small.ratio_to_optimal || small.speedup_vs_blocking);
  EXPECT_TRUE(small.t_comm_s && small.optimal_s && small.t_iter);
  EXPECT_EQ(small.null_reasons.at("overlap_ratio"),
            "below overlap-run's --min-size (65536 B): not intercepted");
  EXPECT_EQ(small.null_reasons.at("ratio_to_optimal"), small.null_reasons.at("overlap_ratio"));
  EXPECT_TRUE(has(small.null_reasons.at("speedup_vs_blocking"), "plain run"));

  P2pPoint large = valid_point(1 << 20, 3.0);  // above --min-size, still nothing deferred
  large.deferred_calls = 0;
  derive_p2p_numbers(large, {2.0, 2.0, std::nullopt, std::nullopt, 20, true, 65536});
  EXPECT_FALSE(large.overlap_ratio);
  EXPECT_TRUE(has(large.null_reasons.at("overlap_ratio"), "deferred none"))
      << large.null_reasons.at("overlap_ratio");

  P2pPoint some = valid_point(1 << 20, 3.0);
  some.deferred_calls = 3;
  derive_p2p_numbers(some, {2.0, 2.0, std::nullopt, std::nullopt, 20, true, 65536});
  EXPECT_TRUE(some.overlap_ratio && some.ratio_to_optimal);
  EXPECT_FALSE(some.null_reasons.count("overlap_ratio"));
}

}  // namespace
}  // namespace overlap::bench
