// The result file of any benchmark (docs/result-format.md): one JSON object with
// schema_version, benchmark, complete, metadata (the run context), config, points, timing
// and `schema`, the description of all four sections generated from the records'
// schemas, so a reader (overlap-report) can check and read any kind without knowing it.
// Written and read back through bench::ResultKind; nothing here knows a benchmark.
#pragma once

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

#include "base/record_schema.hpp"
#include "base/usage_error.hpp"
#include "bench/common/result_kind.hpp"
#include "bench/common/run_context.hpp"
#include "output/result_json.hpp"

namespace overlap::output {

struct RunTiming {
  double wall_s = 0;
  std::optional<double> calibration_s;  // null for benchmarks that do not calibrate
};
const Schema<RunTiming>& run_timing_schema();

template <class C, class P>
nlohmann::json result_schema(const bench::ResultKind<C, P>& kind) {
  return {{"metadata", describe(bench::run_context_schema().docs())},
          {"config", describe(kind.config().docs())},
          {"points", describe(kind.point().docs())},
          {"timing", describe(run_timing_schema().docs())}};
}

template <class C, class P>
nlohmann::json result_document(const bench::ResultKind<C, P>& kind, const bench::RunContext& ctx,
                               const C& config, const std::vector<P>& points, bool complete,
                               const RunTiming& timing) {
  nlohmann::json pts = nlohmann::json::array();
  for (const P& p : points) pts.push_back(kind.point().to_json(p));
  return {{"schema_version", kind.schema_version},
          {"benchmark", std::string(kind.benchmark)},
          {"complete", complete},
          {"metadata", bench::run_context_schema().to_json(ctx)},
          {"config", kind.config().to_json(config)},
          {"points", pts},
          {"timing", run_timing_schema().to_json(timing)},
          {"schema", result_schema(kind)}};
}

template <class C, class P>
struct ResultFile {
  bench::RunContext metadata;
  C config;
  std::vector<P> points;
  bool complete = false;
  RunTiming timing;
};

// Throws UsageError with one line naming the file and the first bad field.
template <class C, class P>
ResultFile<C, P> read_result(const bench::ResultKind<C, P>& kind, const std::string& path) {
  const nlohmann::json doc =
      read_result_file(path, std::string(kind.benchmark), kind.schema_version);
  ResultFile<C, P> f;
  std::string where = "metadata";
  try {
    f.metadata = bench::run_context_schema().from_json(doc.at("metadata"));
    where = "config";
    f.config = kind.config().from_json(doc.at("config"));
    where = "timing";
    f.timing = run_timing_schema().from_json(doc.value("timing", nlohmann::json::object()));
    if (!doc.contains("points") || !doc.at("points").is_array()) {
      throw SchemaError("'points' is missing or not a list");
    }
    int i = 0;
    for (const auto& p : doc.at("points")) {
      where = "point " + std::to_string(i++);
      f.points.push_back(kind.point().from_json(p));
    }
    f.complete = doc.value("complete", false);
  } catch (const SchemaError& e) {
    throw UsageError("'" + path + "' is malformed: " + where + ": " + e.what());
  } catch (const nlohmann::json::exception& e) {
    throw UsageError("'" + path + "' is malformed: " + where + ": " + e.what());
  }
  return f;
}

// CSV of the points: one row each, the flat fields of the point schema as columns (lists
// and sections stay in the JSON). null is an empty cell.
std::string csv_rows(const std::vector<FieldDoc>& fields, const std::vector<nlohmann::json>& rows);

template <class C, class P>
std::string points_csv(const bench::ResultKind<C, P>& kind, const std::vector<P>& points) {
  std::vector<nlohmann::json> rows;
  for (const P& p : points) rows.push_back(kind.point().to_json(p));
  return csv_rows(kind.point().docs(), rows);
}

}  // namespace overlap::output
