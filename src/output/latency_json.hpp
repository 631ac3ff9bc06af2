// JSON form of `latency` runs (docs/result-format.md): one point per (impl, op, size) and
// one ratio per (op, size). Formatting only: records come from bench/latency_bench.
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "bench/latency_bench.hpp"
#include "bench/run_context.hpp"

namespace overlap::output {

inline constexpr int kLatencySchemaVersion = 1;

// The points of one (op, size) record, one per implementation asked for (`impls`). An
// invalid record still yields them, with its reason and null times.
std::vector<nlohmann::json> latency_points_to_json(const bench::LatencyPointRecord& record,
                                                   const std::vector<bench::NbcImpl>& impls);

// The same points as CSV: one row per point, the point's keys as columns.
std::string latency_csv(const std::vector<bench::LatencyPointRecord>& records,
                        const std::vector<bench::NbcImpl>& impls);

nlohmann::json latency_config_to_json(const bench::LatencyConfig& config);

// `complete`: every point of the run is in `records`. `wall_s`: time the run took so far.
nlohmann::json latency_to_json(const bench::RunContext& ctx, const bench::LatencyConfig& config,
                               const std::vector<bench::LatencyPointRecord>& records, bool complete,
                               double wall_s);

}  // namespace overlap::output
