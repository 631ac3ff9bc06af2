// What `overlap-bench sync` records: its configuration and one record (the result file's
// only point) with a row per rank, each with the schema that names its fields.
#pragma once

#include <string>
#include <vector>

#include "base/record_schema.hpp"
#include "bench/common/result_kind.hpp"
#include "clock/sync_schedule.hpp"

namespace overlap::bench {

inline constexpr EnumNames<clock::SyncScheme, 2> kSyncSchemeNames{
    "sync scheme", {{{clock::SyncScheme::log, "log"}, {clock::SyncScheme::linear, "linear"}}}};

struct SyncConfig {
  int patience = 100;            // min-RTT stop rule
  int passes = 11;               // >= 2: drift needs two sync phases
  double span_s = 10.0;          // first to last pass
  double verify_after_s = 10.0;  // last pass to verification
  int barrier_iterations = 200;
  clock::SyncScheme model_scheme = clock::SyncScheme::log;  // whose models are reported
};
const Schema<SyncConfig>& sync_config_schema();

struct RankSyncRecord {
  int rank = 0;
  std::string host;
  double offset_s = 0;                // local - global at the last pass
  double drift_ppm = 0;               // positive: this clock runs fast
  double rtt_min_s = 0;               // min RTT to rank 0 in the verification
  double residual_offset_only_s = 0;  // model - measured global time, at verification
  double residual_drift_s = 0;
  double residual_drift_other_s = 0;  // the other scheme's drift model, for comparison
};
const Schema<RankSyncRecord>& rank_sync_schema();

struct SyncRecord {
  bool trivial = false;               // P = 1: nothing to synchronise
  double verify_elapsed_s = 0;        // actual time from last pass to verification
  std::vector<RankSyncRecord> ranks;  // complete on rank 0 only
  double sync_time_log_s = 0, sync_time_linear_s = 0;
  int steps_log = 0, steps_linear = 0;
  long exchanges_log = 0, exchanges_linear = 0;
  double barrier_skew_s = 0;  // median over iterations of max - min global exit
  double mpi_barrier_skew_s = 0;
  long barrier_late_iterations = 0;
  double barrier_final_window_s = 0;

  bool same_key(const SyncRecord&) const { return true; }  // a run has one
};
const Schema<SyncRecord>& sync_record_schema();

inline constexpr int kSyncSchemaVersion = 2;

inline const ResultKind<SyncConfig, SyncRecord> kSyncResult{
    "sync",
    kSyncSchemaVersion,
    sync_config_schema,
    sync_record_schema,
    {{"trivial", "trivial", 7},
     {"sync_time_log_s", "log pass", 10},
     {"sync_time_linear_s", "linear pass", 11},
     {"steps_log", "log steps", 9},
     {"steps_linear", "lin steps", 9},
     {"barrier_skew_s", "barrier skew", 12},
     {"mpi_barrier_skew_s", "MPI_Barrier skew", 16},
     {"barrier_late_iterations", "late", 5}},
    1,
    "the run's one record: both schemes' cost, barrier skews and a row per rank",
    "ranks",
    {{"rank", "rank", 5},
     {"host", "host", 16},
     {"offset_s", "offset", 11},
     {"drift_ppm", "drift ppm", 10},
     {"rtt_min_s", "min RTT", 10},
     {"residual_offset_only_s", "resid offset", 13},
     {"residual_drift_s", "resid drift", 12},
     {"residual_drift_other_s", "resid other", 12}}};

}  // namespace overlap::bench
