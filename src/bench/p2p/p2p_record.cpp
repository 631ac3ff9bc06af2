#include "bench/p2p/p2p_record.hpp"

namespace overlap::bench {

const Schema<P2pConfig>& p2p_config_schema() {
  using C = P2pConfig;
  static const Schema<C> s =
      Schema<C>()
          .add("sizes_bytes", &C::sizes_bytes, Unit::bytes, "message sizes asked for")
          .add("comp_times_s", &C::comp_times_s, Unit::seconds,
               "computation per period asked for (two periods per round trip)")
          .add("impls", &C::impls, kP2pImplNames,
               "measured in turn; blocking is recorded as overlap-run when the run is "
               "intercepted")
          .add("progress", &C::progress, kProgressPolicyNames,
               "liboverlap's progress policy, for nonblocking-liboverlap (unused otherwise)")
          .add("iterations", &C::iterations, Unit::count, "measured round trips per point")
          .add("warmup", &C::warmup, Unit::count, "unrecorded round trips per point")
          .add("calibration_runs", &C::calibration_runs, Unit::count,
               "runs per calibration step (their median is used)")
          .add("tolerance", &C::tolerance, Unit::ratio, "calibration tolerance of the computation")
          .add("patience", &C::patience, Unit::count, "clock sync: min-RTT stop rule")
          .add("sync_span_s", &C::sync_span_s, Unit::seconds, "time between the first two syncs");
  return s;
}

const Schema<P2pPoint>& p2p_point_schema() {
  using P = P2pPoint;
  static const Schema<P> s =
      Schema<P>()
          .add("impl", &P::impl, kP2pImplNames, "the code measured")
          .add("msg_bytes", &P::msg_bytes, Unit::bytes, "message size")
          .add("target_comp_s", &P::target_comp_s, Unit::seconds,
               "computation per period asked for")
          .add("intercepted", &P::intercepted, Unit::none,
               "the run was under overlap-run (liboverlap-intercept.so loaded)")
          .add("valid", &P::valid, Unit::none,
               "false with fewer than 2 ranks, when the computation did not calibrate, when "
               "the data check (one round trip on known bytes before the timed ones) failed, "
               "or every iteration was discarded")
          .add("invalid_reason", &P::invalid_reason, Unit::none, "one line; empty when valid")
          .add("work_units", &P::work_units, Unit::count,
               "units of work per thread calibrated to one computation period")
          .add("iterations", &P::iterations, Unit::count, "round trips kept")
          .add("discarded", &P::discarded, Unit::count,
               "round trips with computation (behind t_iter) discarded because a rank left "
               "the sync barrier late")
          .add("discarded_pingpong", &P::discarded_pingpong, Unit::count,
               "round trips without computation (behind t_pingpong) discarded, the same way")
          .add("discarded_comm", &P::discarded_comm, Unit::count,
               "MPI's own round trips (behind t_comm, one set per size and computation) "
               "discarded, the same way")
          .add("blocking_calls", &P::blocking_calls, Unit::count,
               "overlap-run only: MPI_Send/MPI_Recv calls of ranks 0 and 1 in the timed round "
               "trips, with and without computation (null for other implementations)")
          .add("deferred_calls", &P::deferred_calls, Unit::count,
               "overlap-run only: how many of those it deferred; 0 (below its --min-size, "
               "say) makes overlap_ratio and ratio_to_optimal null: nothing was overlapped")
          .spread("t_iter", "_s", &P::t_iter, Unit::seconds,
                  "one round trip with computation (rank 0: send, compute, touch, recv, "
                  "compute, touch; rank 1 the mirror): max end - min start of ranks 0 and 1, "
                  "global time; median")
          .add("t_pingpong_s", &P::t_pingpong_s, Unit::seconds,
               "this implementation's round trip without computation, global time; median "
               "(overlap-run over blocking: the cost of the interception)")
          .add("latency_s", &P::latency_s, Unit::seconds,
               "t_pingpong_s / 2: this implementation's one-way latency with nothing to "
               "overlap (overlap-run over plain blocking, files given together: the layer's "
               "cost)")
          .add("bandwidth_Bps", &P::bandwidth_Bps, Unit::none,
               "msg_bytes / latency_s, bytes per second")
          .add("t_comm_s", &P::t_comm_s, Unit::seconds,
               "MPI's own round trip (Irecv/Isend + Wait, not deferred; measured in each run), "
               "global time; median")
          .add("t_comp_s", &P::t_comp_s, Unit::seconds,
               "both computation periods alone, slower of ranks 0 and 1; median")
          .add("optimal_s", &P::optimal_s, Unit::seconds,
               "max(t_comp, t_comm): the paper's optimal completion time")
          .add("overlap_ratio", &P::overlap_ratio, Unit::ratio,
               "(t_comp + t_comm - t_iter) / min(t_comp, t_comm): 1 when the shorter is "
               "hidden entirely, 0 when nothing overlaps")
          .add("speedup_vs_blocking", &P::speedup_vs_blocking, Unit::ratio,
               "t_iter(blocking) / t_iter of this point, same (size, computation), same run; "
               "null under overlap-run (the plain blocking code runs in the plain run)")
          .add("ratio_to_optimal", &P::ratio_to_optimal, Unit::ratio, "t_iter / optimal_s")
          .add("pingpong_vs_pmpi", &P::pingpong_vs_pmpi, Unit::ratio,
               "blocking and overlap-run points, when blocking-pmpi is measured too and its point "
               "is valid: the blocking code's round trip without computation over blocking-pmpi's, "
               "the two "
               "alternating in one extra set (median over median); under overlap-run the "
               "layer's cost with nothing to overlap, in a plain run about 1 (the noise)")
          .section("cpu", &P::cpu, cpu_accounting_schema(),
                   std::string(kCpuSectionDoc) +
                       "; ranks 0 and 1 (the others do not compute), each run's barrier "
                       "included: comm_alone MPI's own round trips, comp_alone both computation "
                       "periods alone, overlapped this implementation's round trips with "
                       "computation",
                   true)
          .section("decomposition", &P::decomposition, cpu_shares_schema(),
                   std::string(kDecompositionSectionDoc) +
                       "; t_comp is the time inside the two computation periods of a round "
                       "trip, t_overlap the rank's whole round trip",
                   true)
          .reasons(&P::null_reasons)
          .add("elapsed_s", &P::elapsed_s, Unit::seconds, "wall time of this (size, computation)");
  return s;
}

}  // namespace overlap::bench
