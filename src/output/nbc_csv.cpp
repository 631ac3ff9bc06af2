#include "output/nbc_csv.hpp"

#include <fmt/format.h>

#include "output/nbc_json.hpp"

namespace overlap::output {
namespace {

std::string cell(const nlohmann::json& v) {
  if (v.is_null()) return "";
  if (v.is_boolean()) return v.get<bool>() ? "true" : "false";
  if (v.is_number_float()) return fmt::format("{:.9g}", v.get<double>());
  if (v.is_number()) return v.dump();
  std::string s = v.get<std::string>();
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string quoted = "\"";
  for (char c : s) quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
  return quoted + "\"";
}

}  // namespace

std::string nbc_csv(const std::vector<bench::NbcPointRecord>& points) {
  // Column order: as in the JSON point, whose keys nlohmann keeps sorted; fixed anyway.
  const nlohmann::json header_source = nbc_point_to_json(bench::NbcPointRecord{});
  std::string text;
  for (auto it = header_source.begin(); it != header_source.end(); ++it) {
    text += (it == header_source.begin() ? "" : ",") + it.key();
  }
  text += '\n';
  for (const auto& p : points) {
    const nlohmann::json row = nbc_point_to_json(p);
    bool first = true;
    for (auto it = header_source.begin(); it != header_source.end(); ++it) {
      text += (first ? "" : ",") + cell(row.at(it.key()));
      first = false;
    }
    text += '\n';
  }
  return text;
}

}  // namespace overlap::output
