// What `overlap-bench latency` records: its configuration and one point per
// (implementation, collective, size), each with the schema that names its fields.
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

struct LatencyConfig {
  std::vector<Collective> ops;
  std::vector<long> sizes_bytes;  // asked for, per rank, with nbc's msg_bytes meaning
  std::vector<Implementation> impls{Implementation::mpi, Implementation::overlap};
  ProgressPolicy progress = ProgressPolicy::automatic;
  int iterations = 20;
  int warmup = 3;
  int patience = 100;
  double sync_span_s = 1.0;
};
const Schema<LatencyConfig>& latency_config_schema();

struct LatencyPoint {
  Implementation impl = Implementation::mpi;
  Collective op = Collective::bcast;
  long requested_bytes = 0;
  long msg_bytes = 0;  // requested_bytes rounded down to whole elements
  int element_bytes = 1;
  std::string algorithm;  // liboverlap's (OVX_Algorithm); empty for MPI's own
  bool valid = false;
  std::string invalid_reason;
  int iterations = 0;  // kept
  int discarded = 0;   // a rank left the sync barrier late
  std::optional<measure::Spread> latency;
  std::optional<double> ratio_overlap_to_mpi;  // the same on both implementations' points
  double elapsed_s = 0;

  // Same (op, size): the unit a run measures, all implementations together.
  bool same_key(const LatencyPoint& o) const {
    return op == o.op && requested_bytes == o.requested_bytes;
  }
};
const Schema<LatencyPoint>& latency_point_schema();

inline constexpr int kLatencySchemaVersion = 3;  // 3: algorithm

inline const ResultKind<LatencyConfig, LatencyPoint> kLatencyResult{
    "latency",
    kLatencySchemaVersion,
    latency_config_schema,
    latency_point_schema,
    {{"impl", "impl", 8},
     {"op", "op", 22},
     {"msg_bytes", "msg", 10},
     {"latency_s", "median", 10},
     {"latency_p25_s", "p25", 10},
     {"latency_p75_s", "p75", 10},
     {"discarded", "late", 5},
     {"ratio_overlap_to_mpi", "ovx/mpi", 8}},
    3,
    "one (implementation, collective, size)"};

}  // namespace overlap::bench
