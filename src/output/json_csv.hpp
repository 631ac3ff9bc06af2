// CSV from flat JSON objects: one row per object, one column per key of `columns` (in its
// key order), so a CSV file and the JSON points it mirrors can never disagree. null is an
// empty cell; strings are quoted only when they must be. Any benchmark's points can use it.
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace overlap::output {

// `columns`: an object with every key a row has (e.g. a point of a default record).
// Throws nlohmann::json::exception when a row lacks one of its keys.
std::string json_rows_to_csv(const nlohmann::json& columns,
                             const std::vector<nlohmann::json>& rows);

}  // namespace overlap::output
