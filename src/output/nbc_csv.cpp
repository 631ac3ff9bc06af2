#include "output/nbc_csv.hpp"

#include "output/json_csv.hpp"
#include "output/nbc_json.hpp"

namespace overlap::output {

std::string nbc_csv(const std::vector<bench::NbcPointRecord>& points) {
  // Columns are the JSON point's keys, so the two files cannot disagree.
  std::vector<nlohmann::json> rows;
  rows.reserve(points.size());
  for (const auto& p : points) rows.push_back(nbc_point_to_json(p));
  return json_rows_to_csv(nbc_point_to_json(bench::NbcPointRecord{}), rows);
}

}  // namespace overlap::output
