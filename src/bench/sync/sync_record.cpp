#include "bench/sync/sync_record.hpp"

namespace overlap::bench {

const Schema<SyncConfig>& sync_config_schema() {
  using C = SyncConfig;
  static const Schema<C> s =
      Schema<C>()
          .add("patience", &C::patience, Unit::count,
               "min-RTT rule: stop after this many exchanges without a new minimum")
          .add("passes", &C::passes, Unit::count, "sync passes (>= 2)")
          .add("span_s", &C::span_s, Unit::seconds, "from the first to the last pass")
          .add("verify_after_s", &C::verify_after_s, Unit::seconds,
               "wait after the last pass before the verification")
          .add("barrier_iterations", &C::barrier_iterations, Unit::count,
               "iterations of each barrier skew measurement")
          .add("model_scheme", &C::model_scheme, kSyncSchemeNames,
               "whose models are reported and used by the barrier");
  return s;
}

const Schema<RankSyncRecord>& rank_sync_schema() {
  using R = RankSyncRecord;
  static const Schema<R> s =
      Schema<R>()
          .add("rank", &R::rank, Unit::none, "rank")
          .add("host", &R::host, Unit::none, "its host")
          .add("offset_s", &R::offset_s, Unit::seconds,
               "how far its clock is ahead of rank 0's, at the last pass")
          .add("drift_ppm", &R::drift_ppm, Unit::none, "positive when its clock runs fast (ppm)")
          .add("rtt_min_s", &R::rtt_min_s, Unit::seconds, "min RTT to rank 0 at verification")
          .add("residual_offset_only_s", &R::residual_offset_only_s, Unit::seconds,
               "error of the offset-only model at verification")
          .add("residual_drift_s", &R::residual_drift_s, Unit::seconds,
               "error of the drift model at verification")
          .add("residual_drift_other_scheme_s", &R::residual_drift_other_s, Unit::seconds,
               "error of the other scheme's drift model");
  return s;
}

const Schema<SyncRecord>& sync_record_schema() {
  using R = SyncRecord;
  static const Schema<R> s =
      Schema<R>()
          .add("trivial", &R::trivial, Unit::none, "one process: nothing to synchronise")
          .add("verify_elapsed_s", &R::verify_elapsed_s, Unit::seconds,
               "actual time from the last pass to the verification")
          .section("ranks", &R::ranks, rank_sync_schema(), "one row per rank")
          .add("sync_time_log_s", &R::sync_time_log_s, Unit::seconds,
               "median duration of one log-scheme pass")
          .add("sync_time_linear_s", &R::sync_time_linear_s, Unit::seconds,
               "median duration of one linear-scheme pass")
          .add("steps_log", &R::steps_log, Unit::count, "sequential steps of a log pass")
          .add("steps_linear", &R::steps_linear, Unit::count, "sequential steps of a linear pass")
          .add("exchanges_log", &R::exchanges_log, Unit::count, "ping-pongs of a log pass")
          .add("exchanges_linear", &R::exchanges_linear, Unit::count, "ping-pongs of a linear pass")
          .add("barrier_skew_s", &R::barrier_skew_s, Unit::seconds,
               "sync barrier: median over iterations of max - min global exit time")
          .add("mpi_barrier_skew_s", &R::mpi_barrier_skew_s, Unit::seconds,
               "MPI_Barrier, measured the same way")
          .add("barrier_late_iterations", &R::barrier_late_iterations, Unit::count,
               "sync barrier iterations in which a rank was late")
          .add("barrier_final_window_s", &R::barrier_final_window_s, Unit::seconds,
               "the sync barrier's window at the end");
  return s;
}

}  // namespace overlap::bench
