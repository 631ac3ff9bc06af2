// JSON form of a sync run: schema_version, metadata, per-rank clock figures, scheme
// costs and barrier skew. Formatting only; the record comes from bench/sync_bench.
#pragma once

#include <nlohmann/json.hpp>

#include <string>

#include "bench/run_context.hpp"
#include "bench/sync_bench.hpp"

namespace overlap::output {

inline constexpr int kSyncSchemaVersion = 1;

nlohmann::json context_to_json(const bench::RunContext& ctx);
nlohmann::json sync_to_json(const bench::RunContext& ctx, const bench::SyncRecord& record);

// Writes to `path` via a temporary file and rename, so a reader never sees half a file.
// Throws std::runtime_error naming the path on failure.
void write_json_file(const std::string& path, const nlohmann::json& doc);

}  // namespace overlap::output
