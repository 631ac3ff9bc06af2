// The overlap percentages of the two benchmarks users compare us with, computed exactly as
// their source does (nbc-overlap paper, sec. 6.3), so a reader can see where they and
// r_overhead disagree. Both start from each rank's *mean* over iterations of local
// durations, as both peers divide a summed time by the number of repetitions:
//   overall   = Icoll; compute; Wait (IMB: t_ovrlp, OSU: "Overall")
//   compute   = the dummy computation during the overlapped run, MPI_Test calls made inside
//               it included (IMB: t_comp, printed as t_CPU; OSU: tcomp, of which it prints
//               "Compute" = tcomp - test)
//   test      = time inside those MPI_Test calls (OSU's test_time; 0 for IMB, which makes none)
//   pure_comm = Icoll + Wait alone (IMB: t_pure, OSU: "Pure Comm.", its latency_in_secs)
// OSU 7.4 (c/util/osu_util_mpi.c, calculate_and_print_stats and print_stats_nbc): each term
// averaged over ranks, then max(0, 100 - 100 (overall - (compute - test)) / pure_comm).
// IMB-NBC (src_c/IMB_output.c, IMB_display_times): the rank with the largest overall time
// (the first such rank: its search keeps a strictly larger one), and that rank's own times:
// 100 max(0, min(1, (pure + c - overall) / max(pure, c))), c = compute - test.
// Which computation the times come from is the caller's: the peers' own protocol
// (bench/nbc/peer_protocol) or nbc's iterations.
#pragma once

#include <optional>
#include <vector>

namespace overlap::measure {

struct PeerRankTimes {
  double overall = 0;
  double compute = 0;  // MPI_Test time included
  double pure_comm = 0;
  double test = 0;  // inside MPI_Test calls during compute
};

// One rank's means over its iterations (each vector: one value per iteration, same
// length, not empty; `test` may be empty: no test calls). Throws std::invalid_argument
// otherwise.
PeerRankTimes peer_rank_means(const std::vector<double>& overall,
                              const std::vector<double>& compute,
                              const std::vector<double>& pure_comm,
                              const std::vector<double>& test = {});

// nullopt when there are no ranks or the mean pure time is not positive.
std::optional<double> osu_overlap_pct(const std::vector<PeerRankTimes>& ranks);
// The rank IMB reports: the first with the largest overall time; -1 when there is none.
int imb_rank(const std::vector<PeerRankTimes>& ranks);
// nullopt when there are no ranks or the chosen rank's max(pure, compute) is not positive.
std::optional<double> imb_overlap_pct(const std::vector<PeerRankTimes>& ranks);

}  // namespace overlap::measure
