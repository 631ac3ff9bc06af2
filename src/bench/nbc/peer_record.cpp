#include "bench/nbc/peer_record.hpp"

namespace overlap::bench {

const Schema<PeerRank>& peer_rank_schema() {
  using R = PeerRank;
  static const Schema<R> s =
      Schema<R>()
          .add("pure_s", &R::pure_s, Unit::seconds,
               "Icoll + Wait alone, each iteration after MPI_Barrier: the rank's mean (both "
               "peers' pure time, and the time OSU's computation runs for)")
          .add("osu_overall_s", &R::osu_overall_s, Unit::seconds,
               "OSU's overlapped run, Icoll; dummy_compute(pure_s); Wait: mean")
          .add("osu_init_s", &R::osu_init_s, Unit::seconds, "its Icoll call: mean")
          .add("osu_compute_s", &R::osu_compute_s, Unit::seconds,
               "its computation, time-based for pure_s, MPI_Test calls included (OSU's "
               "tcomp): mean")
          .add("osu_test_s", &R::osu_test_s, Unit::seconds,
               "inside those MPI_Test calls: mean (0 without --test-interval)")
          .add("osu_wait_s", &R::osu_wait_s, Unit::seconds, "its Wait: mean")
          .add("imb_overall_s", &R::imb_overall_s, Unit::seconds,
               "IMB's overlapped run, Icoll; IMB_cpu_exploit(pure_s, 0); Wait (t_ovrlp): mean")
          .add("imb_compute_s", &R::imb_compute_s, Unit::seconds,
               "its computation, imb_steps steps (IMB's t_comp, printed t_CPU): mean")
          .add("imb_steps", &R::imb_steps, Unit::count,
               "work-based size of that computation: max(1, floor(pure_s * "
               "imb_steps_per_second))")
          .add("imb_steps_per_second", &R::imb_steps_per_second, Unit::none,
               "the rank's kernel rate, measured once per process as IMB does");
  return s;
}

const Schema<PeerPhase>& peer_phase_schema() {
  using P = PeerPhase;
  static const Schema<P> s =
      Schema<P>()
          .add("iterations", &P::iterations, Unit::count,
               "measured iterations of each loop: pure, OSU's, IMB's")
          .add("warmup", &P::warmup, Unit::count, "unrecorded iterations before each loop")
          .add("test_calls", &P::test_calls, Unit::count,
               "MPI_Test calls in each of OSU's computations (its -t), 0 for none")
          .add("imb_rank", &P::imb_rank, Unit::none,
               "the rank IMB reports: the first with the largest imb_overall_s")
          .section("ranks", &P::ranks, peer_rank_schema(), "one per rank, in rank order");
  return s;
}

}  // namespace overlap::bench
