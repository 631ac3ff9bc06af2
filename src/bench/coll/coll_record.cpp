#include "bench/coll/coll_record.hpp"

namespace overlap::bench {

const Schema<CollConfig>& coll_config_schema() {
  using C = CollConfig;
  static const Schema<C> s =
      Schema<C>()
          .add("ops", &C::ops, kBlockingNames, "the collectives")
          .add("sizes_bytes", &C::sizes_bytes, Unit::bytes, "message sizes asked for, per rank")
          .add("impls", &C::impls, kImplementationNames,
               "whose collectives: mpi is MPI's blocking call, overlap liboverlap's OVX_I* + "
               "MPI_Wait")
          .add("progress", &C::progress, kProgressPolicyNames, "liboverlap's progress policy")
          .add("iterations", &C::iterations, Unit::count, "windows to keep per point")
          .add("warmup", &C::warmup, Unit::count,
               "unrecorded runs from the sync barrier before the windows (the pilot)")
          .add("window_s", &C::window_s, Unit::seconds,
               "window length asked for; null: 3 times the pilot's median, doubled while more "
               "than a quarter of a batch is discarded")
          .add("naive", &C::naive, Unit::none, "also measure the MPI_Barrier-started loop")
          .add("patience", &C::patience, Unit::count, "clock sync: min-RTT stop rule")
          .add("sync_span_s", &C::sync_span_s, Unit::seconds, "time between the first two syncs");
  return s;
}

const Schema<CollPoint>& coll_point_schema() {
  using P = CollPoint;
  static const Schema<P> s =
      Schema<P>()
          .add("impl", &P::impl, kImplementationNames, "whose collective")
          .add("op", &P::op, kBlockingNames, "the collective")
          .add("requested_bytes", &P::requested_bytes, Unit::bytes, "the size asked for")
          .add("msg_bytes", &P::msg_bytes, Unit::bytes,
               "requested_bytes rounded down to whole elements of element_bytes")
          .add("element_bytes", &P::element_bytes, Unit::bytes, "8 for reductions, 1 otherwise")
          .add("algorithm", &P::algorithm, Unit::none,
               "liboverlap's algorithm for this size and P (OVX_Algorithm: the cost model's "
               "choice, or OVERLAP_ALGORITHMS); empty for MPI's own")
          .add("valid", &P::valid, Unit::none,
               "false when buffers could not be allocated or no window could be kept")
          .add("invalid_reason", &P::invalid_reason, Unit::none, "one line; empty when valid")
          .add("windows", &P::windows, Unit::count, "windows tried")
          .add("iterations", &P::iterations, Unit::count, "windows kept")
          .add("late_windows", &P::late_windows, Unit::count,
               "windows discarded because a rank reached the window's start after it")
          .add("overrun_windows", &P::overrun_windows, Unit::count,
               "windows discarded because the collective ended after the window closed")
          .add("restarted_windows", &P::restarted_windows, Unit::count,
               "windows on time and within their window, dropped because an overrun (or more "
               "than a quarter lost) widened the window and restarted the sample; windows = "
               "iterations + late + overrun + restarted")
          .add("window_s", &P::window_s, Unit::seconds,
               "the window length of the kept windows (all of one length)")
          .spread("latency", "_s", &P::latency, Unit::seconds,
                  "per kept window: max end - min start over ranks, global time; median")
          .spread("slowest", "_s", &P::slowest, Unit::seconds,
                  "per kept window: the largest end - start of one rank, its own clock; median")
          .add("rank_median_s", &P::rank_median_s, Unit::seconds,
               "each rank's own end - start, median over kept windows, rank order")
          .add("naive_mean_s", &P::naive_mean_s, Unit::seconds,
               "MPI_Barrier; t0; collective; t1 per iteration: each rank's mean of t1 - t0, "
               "averaged over ranks (OSU's average latency); null without --naive")
          .add("naive_max_s", &P::naive_max_s, Unit::seconds,
               "the same, largest rank mean (OSU's maximum latency)")
          .add("naive_to_window", &P::naive_to_window, Unit::ratio,
               "naive_mean_s / latency_s: what the window method corrects")
          .add("ratio_overlap_to_mpi", &P::ratio_overlap_to_mpi, Unit::ratio,
               "latency(overlap) / latency(mpi) at this (op, size); null unless both are valid")
          .add("elapsed_s", &P::elapsed_s, Unit::seconds, "wall time of this (op, size)");
  return s;
}

}  // namespace overlap::bench
