// What every result file shares: the metadata block, atomic writes, and reading a file
// back (for --resume and tests) with errors a user can act on.
#pragma once

#include <nlohmann/json.hpp>

#include <string>

#include "bench/run_context.hpp"

namespace overlap::output {

nlohmann::json context_to_json(const bench::RunContext& ctx);

// Writes to `path` via a temporary file and rename, so a reader never sees half a file.
// Throws std::runtime_error naming the path on failure.
void write_json_file(const std::string& path, const nlohmann::json& doc);
// Writes text the same way (CSV).
void write_text_file(const std::string& path, const std::string& text);

// Reads a result file of `benchmark` with schema `schema_version`. Throws UsageError with
// one line naming the file and the problem (missing, not JSON, other benchmark, other
// schema version).
nlohmann::json read_result_file(const std::string& path, const std::string& benchmark,
                                int schema_version);

}  // namespace overlap::output
