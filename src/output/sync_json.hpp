// JSON form of a sync run: schema_version, metadata, per-rank clock figures, scheme
// costs and barrier skew. Formatting only; the record comes from bench/sync_bench.
#pragma once

#include <nlohmann/json.hpp>

#include <string>

#include "bench/run_context.hpp"
#include "bench/sync_bench.hpp"

namespace overlap::output {

inline constexpr int kSyncSchemaVersion = 1;

nlohmann::json sync_to_json(const bench::RunContext& ctx, const bench::SyncRecord& record);

}  // namespace overlap::output
