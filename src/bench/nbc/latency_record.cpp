#include "bench/nbc/latency_record.hpp"

namespace overlap::bench {

const Schema<LatencyConfig>& latency_config_schema() {
  using C = LatencyConfig;
  static const Schema<C> s =
      Schema<C>()
          .add("ops", &C::ops, kNonblockingNames, "the collectives")
          .add("sizes_bytes", &C::sizes_bytes, Unit::bytes, "message sizes asked for, per rank")
          .add("impls", &C::impls, kImplementationNames, "whose collectives, measured in turn")
          .add("progress", &C::progress, kProgressPolicyNames, "liboverlap's progress policy")
          .add("iterations", &C::iterations, Unit::count, "measured iterations per point")
          .add("warmup", &C::warmup, Unit::count, "unrecorded iterations per point")
          .add("patience", &C::patience, Unit::count, "clock sync: min-RTT stop rule")
          .add("sync_span_s", &C::sync_span_s, Unit::seconds, "time between the first two syncs");
  return s;
}

const Schema<LatencyPoint>& latency_point_schema() {
  using P = LatencyPoint;
  static const Schema<P> s =
      Schema<P>()
          .add("impl", &P::impl, kImplementationNames, "whose collective")
          .add("op", &P::op, kNonblockingNames, "the collective")
          .add("requested_bytes", &P::requested_bytes, Unit::bytes, "the size asked for")
          .add("msg_bytes", &P::msg_bytes, Unit::bytes,
               "requested_bytes rounded down to whole elements of element_bytes")
          .add("element_bytes", &P::element_bytes, Unit::bytes, "8 for reductions, 1 otherwise")
          .add("algorithm", &P::algorithm, Unit::none,
               "liboverlap's algorithm for this size and P (OVX_Algorithm: the cost model's "
               "choice, or OVERLAP_ALGORITHMS); empty for MPI's own")
          .add("valid", &P::valid, Unit::none,
               "false when buffers could not be allocated or no iteration could be kept")
          .add("invalid_reason", &P::invalid_reason, Unit::none, "one line; empty when valid")
          .add("iterations", &P::iterations, Unit::count, "iterations kept")
          .add("discarded", &P::discarded, Unit::count,
               "iterations discarded because a rank left the sync barrier late")
          .spread("latency", "_s", &P::latency, Unit::seconds,
                  "Icoll + MPI_Wait from the sync barrier: max end - min start over ranks, "
                  "global time; median over iterations")
          .add("ratio_overlap_to_mpi", &P::ratio_overlap_to_mpi, Unit::ratio,
               "median(overlap) / median(mpi) at this (op, size); null unless both were measured")
          .add("elapsed_s", &P::elapsed_s, Unit::seconds, "wall time of this (op, size)");
  return s;
}

}  // namespace overlap::bench
