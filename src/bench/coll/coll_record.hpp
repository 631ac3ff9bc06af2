// What `overlap-bench coll` records: its configuration and one point per (implementation,
// collective, size), each with the schema that names its fields.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "base/record_schema.hpp"
#include "bench/common/collective.hpp"
#include "bench/common/implementation.hpp"
#include "bench/common/result_kind.hpp"
#include "measure/statistics.hpp"

namespace overlap::bench {

struct CollConfig {
  std::vector<Collective> ops;
  std::vector<long> sizes_bytes;
  std::vector<Implementation> impls{Implementation::mpi, Implementation::overlap};
  ProgressPolicy progress = ProgressPolicy::automatic;
  int iterations = 50;             // windows kept per point (at most 4x as many tried)
  int warmup = 5;                  // unrecorded runs, also the pilot for the window
  std::optional<double> window_s;  // fixed window; null: 3x the pilot's median
  bool naive = true;               // also the MPI_Barrier-started loop
  int patience = 100;
  double sync_span_s = 1.0;
};
const Schema<CollConfig>& coll_config_schema();

struct CollPoint {
  Implementation impl = Implementation::mpi;
  Collective op = Collective::bcast;
  long requested_bytes = 0;
  long msg_bytes = 0;
  int element_bytes = 1;
  std::string algorithm;  // liboverlap's (OVX_Algorithm); empty for MPI's own
  bool valid = false;
  std::string invalid_reason;
  int windows = 0;                         // tried
  int iterations = 0;                      // kept
  int late_windows = 0;                    // a rank started after its window opened
  int overrun_windows = 0;                 // the operation ended after its window closed
  int restarted_windows = 0;               // dropped when an overrun widened the window
  std::optional<double> window_s;          // the last window length used
  std::optional<measure::Spread> latency;  // max end - min start over ranks
  std::optional<measure::Spread> slowest;  // the slowest rank's own end - start
  std::vector<double> rank_median_s;       // each rank's own time, median over windows
  std::optional<double> naive_mean_s;      // MPI_Barrier loop, OSU's average over ranks
  std::optional<double> naive_max_s;       // its maximum over ranks
  std::optional<double> naive_to_window;   // naive_mean_s / latency median
  std::optional<double> ratio_overlap_to_mpi;
  double elapsed_s = 0;

  bool same_key(const CollPoint& o) const {
    return op == o.op && requested_bytes == o.requested_bytes;
  }
};
const Schema<CollPoint>& coll_point_schema();

// 2 (issue 24): restarted_windows; an overrun widens the window and restarts the sample;
// times converted after the point's re-sync, by interpolation
inline constexpr int kCollSchemaVersion = 3;  // 3: algorithm

inline const ResultKind<CollConfig, CollPoint> kCollResult{
    "coll",
    kCollSchemaVersion,
    coll_config_schema,
    coll_point_schema,
    {{"impl", "impl", 8},
     {"op", "op", 21},
     {"msg_bytes", "msg", 10},
     {"latency_s", "window", 10},
     {"latency_p25_s", "p25", 10},
     {"latency_p75_s", "p75", 10},
     {"slowest_s", "slowest", 10},
     {"naive_mean_s", "naive", 10},
     {"iterations", "kept", 5},
     {"late_windows", "late", 5},
     {"overrun_windows", "over", 5},
     {"restarted_windows", "rst", 5},
     {"ratio_overlap_to_mpi", "ovx/mpi", 8}},
    3,
    "one (implementation, collective, size)"};

}  // namespace overlap::bench
