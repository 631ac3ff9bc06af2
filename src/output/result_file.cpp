#include "output/result_file.hpp"

#include "output/json_csv.hpp"

namespace overlap::output {

std::string csv_rows(const std::vector<FieldDoc>& fields, const std::vector<nlohmann::json>& rows) {
  return json_rows_to_csv(csv_columns(fields), rows);
}

const Schema<RunTiming>& run_timing_schema() {
  static const Schema<RunTiming> s =
      Schema<RunTiming>()
          .add("wall_s", &RunTiming::wall_s, Unit::seconds,
               "wall time of the run so far (resumed runs add up)")
          .add("calibration_s", &RunTiming::calibration_s, Unit::seconds,
               "of which calibrating (null when the benchmark does not calibrate)");
  return s;
}

}  // namespace overlap::output
