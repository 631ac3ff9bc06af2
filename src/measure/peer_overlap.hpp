// The overlap percentages of the two benchmarks users compare us with, computed exactly as
// their source does, on our timings, so a reader can see where they and r_overhead
// disagree (nbc-overlap paper, sec. 6.3). Both start from each rank's *mean* over
// iterations of three local durations, as both peers divide a summed time by the number
// of repetitions:
//   overall   = t4 - t1: Icoll; compute; Wait (IMB: t_ovrlp, OSU: "Overall")
//   compute   = t3 - t2: the computation *during* the overlapped run (IMB: t_CPU as it
//               prints it, which is its COMP time of the overlapped run; OSU: "Compute")
//   pure_comm = Icoll + Wait alone (IMB: t_pure, OSU: "Pure Comm.")
// OSU (osu_util.c, print_stats_nbc): each term averaged over ranks, then
//   max(0, 100 - 100 (overall - compute) / pure_comm).
// IMB-NBC (IMB_output.c, IMB_display_times): the rank with the largest overall time, and
// that rank's own three times: 100 max(0, min(1, (pure + compute - overall) / max(pure, compute))).
#pragma once

#include <optional>
#include <vector>

namespace overlap::measure {

struct PeerRankTimes {
  double overall = 0;
  double compute = 0;
  double pure_comm = 0;
};

// One rank's means over its iterations (each vector: one value per iteration, same
// length, not empty). Throws std::invalid_argument otherwise.
PeerRankTimes peer_rank_means(const std::vector<double>& overall,
                              const std::vector<double>& compute,
                              const std::vector<double>& pure_comm);

// nullopt when there are no ranks or the mean pure time is not positive.
std::optional<double> osu_overlap_pct(const std::vector<PeerRankTimes>& ranks);
// nullopt when there are no ranks or the chosen rank's max(pure, compute) is not positive.
std::optional<double> imb_overlap_pct(const std::vector<PeerRankTimes>& ranks);

}  // namespace overlap::measure
