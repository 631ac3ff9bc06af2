// `overlap-bench sync`: synchronise the group's clocks, then check how good that was.
// Runs log and linear scheme passes interleaved over `span`, times them, measures
// barrier exit skew (ours vs MPI_Barrier), and after `verify_after` compares each rank's
// models with a fresh direct min-RTT measurement against rank 0. Produces a record;
// prints nothing.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <string>
#include <vector>

#include "clock/clock_source.hpp"
#include "clock/offset_estimator.hpp"
#include "clock/sync_schedule.hpp"

namespace overlap::bench {

struct SyncConfig {
  clock::EstimatorConfig estimator;
  int passes = 11;               // >= 2: drift needs two sync phases
  double span_s = 10.0;          // first to last pass
  double verify_after_s = 10.0;  // last pass to verification
  int barrier_iterations = 200;
  clock::SyncScheme model_scheme = clock::SyncScheme::log;  // whose models are reported
};

struct RankSyncRecord {
  int rank = 0;
  double offset_s = 0;                // local - global at the last pass
  double drift_ppm = 0;               // positive: this clock runs fast
  double rtt_min_s = 0;               // min RTT to rank 0 in the verification
  double residual_offset_only_s = 0;  // model - measured global time, at verification
  double residual_drift_s = 0;
  double residual_drift_other_s = 0;  // the other scheme's drift model, for comparison
};

struct SchemeRecord {
  std::string scheme;
  double sync_time_s = 0;      // median over passes of one pass's duration
  int steps = 0;               // sequential exchange steps of one pass, as measured
  std::int64_t exchanges = 0;  // ping-pongs in one pass (median pass), all ranks
};

struct SyncRecord {
  bool trivial = false;  // P = 1: nothing to synchronise
  SyncConfig config;
  double verify_elapsed_s = 0;        // actual time from last pass to verification
  std::vector<RankSyncRecord> ranks;  // complete on rank 0 only
  SchemeRecord log;
  SchemeRecord linear;
  double barrier_skew_s = 0;  // median over iterations of max - min global exit
  double mpi_barrier_skew_s = 0;
  long barrier_late_iterations = 0;
  double barrier_final_window_s = 0;
};

// Collective. The full record is meaningful on rank 0.
SyncRecord run_sync(MPI_Comm comm, const clock::ClockSource& clock, const SyncConfig& config);

}  // namespace overlap::bench
