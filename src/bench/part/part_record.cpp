#include "bench/part/part_record.hpp"

namespace overlap::bench {

const Schema<PartConfig>& part_config_schema() {
  using C = PartConfig;
  static const Schema<C> s =
      Schema<C>()
          .add("pattern", &C::pattern, kPartPatternNames,
               "p2p (rank 0 to rank 1), sweep3d (2-D wavefront) or halo3d (3-D faces)")
          .add("impls", &C::impls, kPartImplNames, "implementations, measured in turn")
          .add("sizes_bytes", &C::sizes_bytes, Unit::bytes, "message sizes asked for")
          .add("partitions", &C::partitions, Unit::count, "partition counts (one thread each)")
          .add("compute_s", &C::compute_s, Unit::seconds, "computation per thread")
          .add("noise", &C::noise, kNoiseModelNames, "noise model")
          .add("noise_fraction", &C::noise_fraction, Unit::ratio, "noise amount")
          .add("cache", &C::cache, kCacheStateNames, "hot or cold cache")
          .add("flush_bytes", &C::flush_bytes, Unit::bytes,
               "cold: bytes written before each iteration (1.5 x the last-level cache)")
          .add("flush_source", &C::flush_source, Unit::none,
               "where the last-level cache size came from (hwloc, sysconf, default)")
          .add("aggregation", &C::aggregation, Unit::none, "liboverlap's overlap_aggregation")
          .add("progress", &C::progress, kProgressPolicyNames, "liboverlap's progress policy")
          .add("iterations", &C::iterations, Unit::count, "measured iterations per phase")
          .add("warmup", &C::warmup, Unit::count, "unrecorded iterations per phase")
          .add("patience", &C::patience, Unit::count, "clock sync: min-RTT stop rule")
          .add("sync_span_s", &C::sync_span_s, Unit::seconds, "time between the first two syncs");
  return s;
}

const Schema<PartPoint>& part_point_schema() {
  using P = PartPoint;
  static const Schema<P> s =
      Schema<P>()
          .add("impl", &P::impl, kPartImplNames, "whose transfer")
          .add("requested_bytes", &P::requested_bytes, Unit::bytes, "the size asked for")
          .add("msg_bytes", &P::msg_bytes, Unit::bytes,
               "requested_bytes rounded down to a multiple of partitions")
          .add("partitions", &P::partitions, Unit::count, "partitions = sender threads")
          .add("valid", &P::valid, Unit::none,
               "false when the implementation is not available or no iteration was kept")
          .add("invalid_reason", &P::invalid_reason, Unit::none, "one line; empty when valid")
          .add("iterations", &P::iterations, Unit::count, "iterations kept per phase")
          .add("discarded", &P::discarded, Unit::count,
               "iterations discarded because a rank left the sync barrier late")
          .add("grid", &P::grid, Unit::none,
               "sweep3d, halo3d: the process grid from MPI_Dims_create (not periodic); empty "
               "for p2p")
          .spread("iteration", "_s", &P::iteration, Unit::seconds,
                  "sweep3d, halo3d: the sync barrier to the last rank's last send and receive "
                  "done (computation and noise included), global time; median over iterations")
          .spread("transfer", "_s", &P::transfer, Unit::seconds,
                  "p2p: no computation, no noise: sync barrier to the receiver's last arrival, "
                  "global time; median over iterations")
          .add("overhead", &P::overhead, Unit::ratio,
               "p2p: median transfer / median transfer of single at this point (paper eq. 1); "
               "sweep3d, halo3d: median iteration / median iteration of single")
          .spread("after_join", "_s", &P::after_join, Unit::seconds,
                  "p2p, with computation and noise: the last partition ready (the join) to the "
                  "receiver's last arrival; median over iterations")
          .add("perceived_bandwidth_Bps", &P::perceived_bandwidth_Bps, Unit::none,
               "msg_bytes / median after_join, bytes per second (paper eq. 2)")
          .add("availability", &P::availability, Unit::ratio,
               "1 - median after_join / median after_join of single (paper eq. 3)")
          .add("early_bird_pct", &P::early_bird_pct, Unit::percent,
               "p2p: percent of the bytes that arrived before the join (paper eq. 4, counted in "
               "bytes); sweep3d: percent of the bytes of all faces that reached the downstream "
               "rank before the sending rank's threads joined; median over iterations")
          .add("ready_s", &P::ready_s, Unit::seconds,
               "per partition: median time it was ready, from the start (with computation)")
          .add("arrive_s", &P::arrive_s, Unit::seconds,
               "per partition: median time it arrived, from the start (with computation)")
          .reasons(&P::null_reasons)
          .add("elapsed_s", &P::elapsed_s, Unit::seconds, "wall time of this unit");
  return s;
}

}  // namespace overlap::bench
