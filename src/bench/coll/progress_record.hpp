// What `overlap-bench progress` records: its configuration and one point per
// (implementation, collective, size), with the progression runs of each test interval as
// a nested list, each with the schema that names its fields.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "base/record_schema.hpp"
#include "bench/common/collective.hpp"
#include "bench/common/cpu_record.hpp"
#include "bench/common/implementation.hpp"
#include "bench/common/result_kind.hpp"
#include "measure/statistics.hpp"

namespace overlap::bench {

struct ProgressConfig {
  std::vector<Collective> ops;
  std::vector<long> sizes_bytes;
  std::vector<Implementation> impls{Implementation::mpi};
  ProgressPolicy progress = ProgressPolicy::caller;
  std::vector<long> test_intervals_bytes;  // one progression run each; empty: none
  int iterations = 11;
  int warmup = 2;
  int calibration_runs = 5;
  double tolerance = 0.1;
  int patience = 100;
  double sync_span_s = 1.0;
};
const Schema<ProgressConfig>& progress_config_schema();

// One test interval: the work-based run with MPI_Test calls between pieces of it.
struct ProgressTests {
  long interval_bytes = 0;
  int test_calls = 0;                      // ceil(msg_bytes / interval) + 1
  std::optional<measure::Spread> t_total;  // t4 - t1 of the pacing rank
  std::optional<measure::Spread> t_wait;   // MPI_Wait after the computation, pacing rank
  std::optional<measure::Spread> t_test;   // inside the MPI_Test calls, pacing rank
  std::optional<double> wait_fraction;     // median t_wait / median t_blocking
};
const Schema<ProgressTests>& progress_tests_schema();

struct ProgressPoint {
  Implementation impl = Implementation::mpi;
  Collective op = Collective::bcast;
  long requested_bytes = 0;
  long msg_bytes = 0;
  int element_bytes = 1;
  bool valid = false;
  std::string invalid_reason;
  int iterations = 0;                            // kept
  int discarded = 0;                             // a rank left a sync barrier late
  std::optional<long> work_units;                // units per thread of the work-based run
  std::optional<measure::Spread> t_blocking;     // Icoll + Wait alone, global span
  std::optional<measure::Spread> t_work_ref;     // the work alone, pacing rank
  std::optional<measure::Spread> overhead_time;  // time-based: t_call + t_wait
  std::optional<measure::Spread> work_fraction;  // time-based: units done / units alone
  std::optional<measure::Spread> overhead_work;  // work-based: (t4 - t1) - t_work_ref
  std::optional<double> hidden_s;                // median overhead_work - median overhead_time
  std::vector<ProgressTests> tests;
  std::optional<CpuAccounting> cpu;        // docs/cpu-accounting.md
  std::optional<CpuShares> decomposition;  // of the work-based run's slowdown
  std::map<std::string, std::string> null_reasons;
  double calibration_s = 0;
  double elapsed_s = 0;

  bool same_key(const ProgressPoint& o) const {
    return op == o.op && requested_bytes == o.requested_bytes;
  }
};
const Schema<ProgressPoint>& progress_point_schema();

// 2: cpu, decomposition, null_reasons (issue 13)
inline constexpr int kProgressSchemaVersion = 2;

inline const ResultKind<ProgressConfig, ProgressPoint> kProgressResult{
    "progress",
    kProgressSchemaVersion,
    progress_config_schema,
    progress_point_schema,
    {{"impl", "impl", 8},
     {"op", "op", 22},
     {"msg_bytes", "msg", 10},
     {"t_blocking_s", "t_b", 10},
     {"overhead_time_s", "ovh time", 10},
     {"overhead_work_s", "ovh work", 10},
     {"hidden_s", "hidden", 10},
     {"work_fraction", "work", 6},
     {"discarded", "late", 5}},
    3,
    "one (implementation, collective, size), with one progression run per test interval",
    "tests",
    {{"interval_bytes", "interval", 10},
     {"test_calls", "tests", 6},
     {"t_wait_s", "t_wait", 10},
     {"wait_fraction", "wait/t_b", 9},
     {"t_test_s", "in tests", 10},
     {"t_total_s", "total", 10}}};

}  // namespace overlap::bench
