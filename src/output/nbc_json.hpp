// JSON form of `nbc` and `impact` runs (docs/result-format.md). Formatting and parsing
// only: records come from bench/. A point read back equals the point written (resume).
#pragma once

#include <nlohmann/json.hpp>

#include <vector>

#include "bench/impact_bench.hpp"
#include "bench/nbc_bench.hpp"
#include "bench/run_context.hpp"

namespace overlap::output {

inline constexpr int kNbcSchemaVersion = 1;
inline constexpr int kImpactSchemaVersion = 1;

nlohmann::json nbc_point_to_json(const bench::NbcPointRecord& point);
// Throws nlohmann::json::exception or UsageError on a malformed point.
bench::NbcPointRecord nbc_point_from_json(const nlohmann::json& j);

nlohmann::json nbc_config_to_json(const bench::NbcConfig& config);

struct NbcRunSummary {
  bool complete = false;
  double wall_s = 0;
  double calibration_s = 0;
  bench::ClockSyncQuality sync;
};

nlohmann::json nbc_to_json(const bench::RunContext& ctx, const bench::NbcConfig& config,
                           const std::vector<bench::NbcPointRecord>& points,
                           const NbcRunSummary& summary);

nlohmann::json impact_to_json(const bench::RunContext& ctx, const bench::ImpactConfig& config,
                              const std::vector<bench::ImpactPoint>& points);

}  // namespace overlap::output
