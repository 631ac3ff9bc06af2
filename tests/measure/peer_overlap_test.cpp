#include "measure/peer_overlap.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>

namespace overlap::measure {
namespace {

double rounded(double pct) { return std::round(pct * 100) / 100; }  // as the peers print

TEST(ImbOverlap, ReproducesThePapersImbOutput) {
  // nbc-overlap paper, figure 13 (IMB-NBC 2018, MPICH + async progress, 1 MB, 8 nodes):
  // t_ovrl 2281.20, t_pure 1888.82, t_CPU 2052.86 -> 80.89 %; and 981.55, 790.55, 803.90 ->
  // 76.24 %. By hand: (1888.82 + 2052.86 - 2281.20) / max(1888.82, 2052.86) = 0.80886.
  // (ab6b786 divided by the minimum and gave 87.91 %.)
  EXPECT_DOUBLE_EQ(rounded(*imb_overlap_pct({{2281.20, 2052.86, 1888.82}})), 80.89);
  EXPECT_DOUBLE_EQ(rounded(*imb_overlap_pct({{981.55, 803.90, 790.55}})), 76.24);
}

TEST(ImbOverlap, TakesTheRankWithTheLargestOverlappedTimeAndItsOwnTimes) {
  // IMB_display_times: rank_index = timing[MAX].offset[OVRLP]; t_pure, t_ovrlp, t_comp of
  // that rank. Rank 0 has the largest overall time (15): (8 + 10 - 15) / max(8, 10) = 30 %.
  // Maxima of each term separately (15, 10, 10) would give 50 %.
  const std::vector<PeerRankTimes> ranks{{15, 10, 8}, {12, 9, 10}};
  EXPECT_DOUBLE_EQ(*imb_overlap_pct(ranks), 30.0);
  // Ties keep the first rank, as IMB's strict ">" does.
  EXPECT_DOUBLE_EQ(*imb_overlap_pct({{10, 5, 5}, {10, 10, 10}}), 0.0);
}

TEST(ImbOverlap, ClampsToZeroAndHundred) {
  EXPECT_DOUBLE_EQ(*imb_overlap_pct({{9, 10, 10}}), 100.0);
  EXPECT_DOUBLE_EQ(*imb_overlap_pct({{30, 10, 10}}), 0.0);
  EXPECT_FALSE(imb_overlap_pct({}));
  EXPECT_FALSE(imb_overlap_pct({{1, 0, 0}}));
}

TEST(OsuOverlap, ReproducesThePapersOsuOutput) {
  // Figures 11 and 12 (OSU 5.7): overall, compute, pure -> overlap %.
  // 100 - 100 (665.10 - 424.78) / 412.18 = 41.695.
  EXPECT_DOUBLE_EQ(rounded(*osu_overlap_pct({{665.10, 424.78, 412.18}})), 41.70);
  EXPECT_DOUBLE_EQ(rounded(*osu_overlap_pct({{1226.44, 706.79, 681.85}})), 23.79);
  EXPECT_DOUBLE_EQ(rounded(*osu_overlap_pct({{2098.49, 1888.42, 1832.79}})), 88.54);
  EXPECT_DOUBLE_EQ(rounded(*osu_overlap_pct({{851.56, 663.64, 643.58}})), 70.80);
}

TEST(OsuOverlap, AveragesEachTermOverRanksAndClampsAtZero) {
  // Means over ranks: overall 15, compute 10, pure 10 -> 100 - 100 * 5/10 = 50 %.
  EXPECT_DOUBLE_EQ(*osu_overlap_pct({{14, 10, 9}, {16, 10, 11}}), 50.0);
  EXPECT_DOUBLE_EQ(*osu_overlap_pct({{25, 10, 10}}), 0.0);
  EXPECT_FALSE(osu_overlap_pct({}));
}

TEST(PeerRankMeans, AreMeansNotMedians) {
  // Both peers divide a summed time by the repetitions: 1, 2, 9 averages to 4 (median 2).
  const PeerRankTimes t = peer_rank_means({1, 2, 9}, {1, 1, 1}, {3, 3, 6});
  EXPECT_DOUBLE_EQ(t.overall, 4.0);
  EXPECT_DOUBLE_EQ(t.compute, 1.0);
  EXPECT_DOUBLE_EQ(t.pure_comm, 4.0);
  EXPECT_THROW(peer_rank_means({}, {}, {}), std::invalid_argument);
  EXPECT_THROW(peer_rank_means({1}, {1, 2}, {1}), std::invalid_argument);
}

}  // namespace
}  // namespace overlap::measure
