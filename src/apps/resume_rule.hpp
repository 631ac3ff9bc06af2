// The --resume rule, written once for every benchmark that resumes. The file defines the
// run: its configuration is used as recorded. Options a user repeats are accepted when
// they ask for what the file has; one that differs is refused with one line naming the
// option, the file's value and the given value (exit 2, before MPI starts). After
// MPI_Init, a file measured by another kind of run (process count, MPI library, threads
// per rank, overlap-run or not and its settings) is refused the same way.
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "base/option_spec.hpp"
#include "base/record_schema.hpp"
#include "bench/common/run_context.hpp"

namespace overlap::apps {

// `asked`: the configuration the typed options parse to (with defaults for the rest);
// `recorded`: the file's. Throws UsageError for the first typed option whose configuration
// field differs.
void check_repeated_options(const OptionValues& values, const std::vector<FieldDoc>& config,
                            const nlohmann::json& asked, const nlohmann::json& recorded,
                            const std::string& path);

// The reason a file cannot be continued by this run, or "".
std::string resume_mismatch(const bench::RunContext& recorded, const bench::RunContext& now);

}  // namespace overlap::apps
