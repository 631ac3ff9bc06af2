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

bool flat(FieldKind k) {
  return k == FieldKind::number || k == FieldKind::integer || k == FieldKind::boolean ||
         k == FieldKind::text || k == FieldKind::name;
}

}  // namespace

std::vector<std::string> csv_columns(const std::vector<FieldDoc>& fields) {
  std::vector<std::string> columns;
  for (const FieldDoc& f : fields) {
    if (flat(f.kind)) columns.push_back(f.name);
  }
  return columns;
}

std::string json_rows_to_csv(const std::vector<std::string>& columns,
                             const std::vector<nlohmann::json>& rows) {
  std::string text;
  for (std::size_t i = 0; i < columns.size(); ++i) text += (i ? "," : "") + columns[i];
  text += '\n';
  for (const nlohmann::json& row : rows) {
    for (std::size_t i = 0; i < columns.size(); ++i) {
      text += (i ? "," : "") + cell(row.at(columns[i]));
    }
    text += '\n';
  }
  return text;
}

}  // namespace overlap::output
