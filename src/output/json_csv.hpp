// CSV from flat JSON objects: one row per object, one column per flat field of a schema
// (numbers, integers, booleans, texts, names), so a CSV file and the JSON points it mirrors
// can never disagree. null is an empty cell; strings are quoted only when they must be.
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "base/record_schema.hpp"

namespace overlap::output {

// The fields that become columns, in schema order.
std::vector<std::string> csv_columns(const std::vector<FieldDoc>& fields);

// Throws nlohmann::json::exception when a row lacks one of the columns.
std::string json_rows_to_csv(const std::vector<std::string>& columns,
                             const std::vector<nlohmann::json>& rows);

}  // namespace overlap::output
