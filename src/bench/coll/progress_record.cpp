#include "bench/coll/progress_record.hpp"

namespace overlap::bench {

const Schema<ProgressConfig>& progress_config_schema() {
  using C = ProgressConfig;
  static const Schema<C> s =
      Schema<C>()
          .add("ops", &C::ops, kNonblockingNames, "the collectives")
          .add("sizes_bytes", &C::sizes_bytes, Unit::bytes, "message sizes asked for, per rank")
          .add("impls", &C::impls, kImplementationNames, "whose collectives, measured in turn")
          .add("progress", &C::progress, kProgressPolicyNames, "liboverlap's progress policy")
          .add("test_intervals_bytes", &C::test_intervals_bytes, Unit::bytes,
               "one progression run per interval: MPI_Test every this many bytes of message")
          .add("iterations", &C::iterations, Unit::count, "iterations measured per point")
          .add("warmup", &C::warmup, Unit::count, "unrecorded iterations per point")
          .add("calibration_runs", &C::calibration_runs, Unit::count,
               "runs per calibration step (their median is used)")
          .add("tolerance", &C::tolerance, Unit::ratio,
               "calibration tolerance of the work-based computation")
          .add("patience", &C::patience, Unit::count, "clock sync: min-RTT stop rule")
          .add("sync_span_s", &C::sync_span_s, Unit::seconds, "time between the first two syncs");
  return s;
}

const Schema<ProgressTests>& progress_tests_schema() {
  using T = ProgressTests;
  static const Schema<T> s =
      Schema<T>()
          .add("interval_bytes", &T::interval_bytes, Unit::bytes, "MPI_Test every this many bytes")
          .add("test_calls", &T::test_calls, Unit::count,
               "MPI_Test calls: ceil(msg_bytes / interval_bytes) + 1, one before the "
               "computation and one after each of its equal pieces")
          .spread("t_total", "_s", &T::t_total, Unit::seconds,
                  "Icoll; pieces and tests; Wait: t4 - t1 of the pacing rank; median")
          .spread("t_wait", "_s", &T::t_wait, Unit::seconds,
                  "MPI_Wait after the computation, pacing rank: what was left to do; median")
          .spread("t_test", "_s", &T::t_test, Unit::seconds,
                  "time inside the MPI_Test calls, pacing rank; median")
          .add("wait_fraction", &T::wait_fraction, Unit::ratio,
               "t_wait / t_blocking: near 0 once the tests progress the collective");
  return s;
}

const Schema<ProgressPoint>& progress_point_schema() {
  using P = ProgressPoint;
  static const Schema<P> s =
      Schema<P>()
          .add("impl", &P::impl, kImplementationNames, "whose collective")
          .add("op", &P::op, kNonblockingNames, "the collective")
          .add("requested_bytes", &P::requested_bytes, Unit::bytes, "the size asked for")
          .add("msg_bytes", &P::msg_bytes, Unit::bytes,
               "requested_bytes rounded down to whole elements of element_bytes")
          .add("element_bytes", &P::element_bytes, Unit::bytes, "8 for reductions, 1 otherwise")
          .add("valid", &P::valid, Unit::none,
               "false when buffers could not be allocated, the work did not calibrate or no "
               "iteration could be kept")
          .add("invalid_reason", &P::invalid_reason, Unit::none, "one line; empty when valid")
          .add("iterations", &P::iterations, Unit::count, "iterations kept")
          .add("discarded", &P::discarded, Unit::count,
               "iterations discarded because a rank left a sync barrier late")
          .add("work_units", &P::work_units, Unit::count,
               "units of work per thread calibrated to take t_blocking (work-based run)")
          .spread("t_blocking", "_s", &P::t_blocking, Unit::seconds,
                  "Icoll + MPI_Wait alone from the sync barrier: max end - min start, global "
                  "time; median (the paper's t_b)")
          .spread("t_work_ref", "_s", &P::t_work_ref, Unit::seconds,
                  "the work-based computation alone, pacing rank; median")
          .spread("overhead_time", "_s", &P::overhead_time, Unit::seconds,
                  "time-based: computing for t_b between Icoll and Wait, the time inside the "
                  "two calls (t_call + t_wait), pacing rank; median")
          .spread("work_fraction", "", &P::work_fraction, Unit::ratio,
                  "time-based: units done while the collective ran / units done alone in the "
                  "same time, smallest over ranks; median (below 1: cycles were stolen)")
          .spread("overhead_work", "_s", &P::overhead_work, Unit::seconds,
                  "work-based: (t4 - t1) - the same work alone, pacing rank; median")
          .add("hidden_s", &P::hidden_s, Unit::seconds,
               "overhead_work - overhead_time: the cost the time-based form does not show")
          .section("tests", &P::tests, progress_tests_schema(),
                   "one progression run per test interval (config order)")
          .section("cpu", &P::cpu, cpu_accounting_schema(),
                   std::string(kCpuSectionDoc) +
                       "; phases: comm_alone the bare collective, comp_alone the work alone, "
                       "overlapped the work-based run (Icoll + work + Wait)",
                   true)
          .section("decomposition", &P::decomposition, cpu_shares_schema(),
                   std::string(kDecompositionSectionDoc) +
                       "; of the work-based run against the work alone",
                   true)
          .reasons(&P::null_reasons)
          .add("calibration_s", &P::calibration_s, Unit::seconds, "wall time calibrating")
          .add("elapsed_s", &P::elapsed_s, Unit::seconds, "wall time of this (op, size)");
  return s;
}

}  // namespace overlap::bench
