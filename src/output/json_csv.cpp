#include "output/json_csv.hpp"

#include <fmt/format.h>

namespace overlap::output {
namespace {

std::string cell(const nlohmann::json& v) {
  if (v.is_null()) return "";
  if (v.is_boolean()) return v.get<bool>() ? "true" : "false";
  // Nine digits keep a time in seconds to the nanosecond without float noise.
  if (v.is_number_float()) return fmt::format("{:.9g}", v.get<double>());
  if (v.is_number()) return v.dump();
  std::string s = v.get<std::string>();
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string quoted = "\"";
  for (char c : s) quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
  return quoted + "\"";
}

}  // namespace

std::string json_rows_to_csv(const nlohmann::json& columns,
                             const std::vector<nlohmann::json>& rows) {
  std::string text;
  for (auto it = columns.begin(); it != columns.end(); ++it) {
    text += (it == columns.begin() ? "" : ",") + it.key();
  }
  text += '\n';
  for (const nlohmann::json& row : rows) {
    for (auto it = columns.begin(); it != columns.end(); ++it) {
      text += (it == columns.begin() ? "" : ",") + cell(row.at(it.key()));
    }
    text += '\n';
  }
  return text;
}

}  // namespace overlap::output
