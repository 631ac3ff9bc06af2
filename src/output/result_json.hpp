// What every result file shares: atomic writes, and reading a file back (for --resume and
// tests) with errors a user can act on. The envelope itself is result_file.hpp.
#pragma once

#include <nlohmann/json.hpp>

#include <string>

namespace overlap::output {

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
