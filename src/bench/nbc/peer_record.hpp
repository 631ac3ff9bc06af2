// What the peers' own protocols measured at one nbc point (bench/nbc/peer_protocol): every
// rank's means, so the OSU and IMB columns can be recomputed from the file
// (docs/nbc-benchmark.md, "OSU's and IMB's overlap, with their own protocols").
#pragma once

#include <vector>

#include "base/record_schema.hpp"

namespace overlap::bench {

// One rank's means over the phase's measured iterations, local durations.
struct PeerRank {
  double pure_s = 0;         // Icoll + Wait alone: both peers' pure time, and OSU's target
  double osu_overall_s = 0;  // OSU: Icoll; dummy_compute(pure_s); Wait
  double osu_init_s = 0;     // the Icoll call
  double osu_compute_s = 0;  // the computation, its MPI_Test calls included (OSU's tcomp)
  double osu_test_s = 0;     // inside those MPI_Test calls
  double osu_wait_s = 0;
  double imb_overall_s = 0;         // IMB: Icoll; IMB_cpu_exploit(pure_s, 0); Wait (t_ovrlp)
  double imb_compute_s = 0;         // the computation (IMB's t_comp, printed as t_CPU)
  long imb_steps = 0;               // repetitions: max(1, floor(pure_s * imb_steps_per_second))
  double imb_steps_per_second = 0;  // the rank's rate, measured once per process
};
const Schema<PeerRank>& peer_rank_schema();

struct PeerPhase {
  int iterations = 0;  // measured iterations of each loop (pure, OSU, IMB)
  int warmup = 0;      // unrecorded iterations before each loop
  int test_calls = 0;  // OSU's MPI_Test calls per overlapped run (its -t), 0 for none
  int imb_rank = 0;    // the rank IMB reports: the first with the largest imb_overall_s
  std::vector<PeerRank> ranks;
};
const Schema<PeerPhase>& peer_phase_schema();

}  // namespace overlap::bench
