#include "output/latency_json.hpp"

#include <string>
#include <utility>

#include "output/json_csv.hpp"
#include "output/result_json.hpp"

namespace overlap::output {
namespace {

using nlohmann::json;

std::string name(bench::NbcOp op) { return std::string(bench::to_string(op)); }
std::string name(bench::NbcImpl impl) { return std::string(bench::to_string(impl)); }

json ratio_to_json(const bench::LatencyPointRecord& r) {
  return {{"op", name(r.key.op)},
          {"requested_bytes", r.key.requested_bytes},
          {"msg_bytes", r.msg_bytes},
          {"ratio_overlap_to_mpi", r.ratio ? json(*r.ratio) : json(nullptr)}};
}

}  // namespace

std::vector<json> latency_points_to_json(const bench::LatencyPointRecord& r,
                                         const std::vector<bench::NbcImpl>& impls) {
  std::vector<json> points;
  for (bench::NbcImpl impl : impls) {
    const bench::LatencyTimes* t = r.valid ? r.times_of(impl) : nullptr;
    const auto measured = [&](double v) { return t ? json(v) : json(nullptr); };
    points.push_back({{"impl", name(impl)},
                      {"op", name(r.key.op)},
                      {"requested_bytes", r.key.requested_bytes},
                      {"msg_bytes", r.msg_bytes},
                      {"element_bytes", r.element_bytes},
                      {"valid", r.valid},
                      {"invalid_reason", r.invalid_reason},
                      {"iterations", r.iterations},
                      {"median_s", measured(t ? t->median_s : 0)},
                      {"p25_s", measured(t ? t->p25_s : 0)},
                      {"p75_s", measured(t ? t->p75_s : 0)},
                      {"elapsed_s", r.elapsed_s}});
  }
  return points;
}

std::string latency_csv(const std::vector<bench::LatencyPointRecord>& records,
                        const std::vector<bench::NbcImpl>& impls) {
  const json columns =
      latency_points_to_json(bench::LatencyPointRecord{}, {bench::NbcImpl::mpi}).front();
  std::vector<json> rows;
  for (const bench::LatencyPointRecord& r : records) {
    for (json& p : latency_points_to_json(r, impls)) rows.push_back(std::move(p));
  }
  return json_rows_to_csv(columns, rows);
}

json latency_config_to_json(const bench::LatencyConfig& c) {
  json ops = json::array();
  for (bench::NbcOp op : c.ops) ops.push_back(name(op));
  json impls = json::array();
  for (bench::NbcImpl impl : c.impls) impls.push_back(name(impl));
  return {{"ops", ops},
          {"sizes_bytes", c.sizes_bytes},
          {"impls", impls},
          {"progress", c.progress},
          {"iterations", c.iterations},
          {"warmup", c.warmup}};
}

json latency_to_json(const bench::RunContext& ctx, const bench::LatencyConfig& config,
                     const std::vector<bench::LatencyPointRecord>& records, bool complete,
                     double wall_s) {
  json points = json::array();
  json ratios = json::array();
  for (const bench::LatencyPointRecord& r : records) {
    for (json& p : latency_points_to_json(r, config.impls)) points.push_back(std::move(p));
    ratios.push_back(ratio_to_json(r));
  }
  return {{"schema_version", kLatencySchemaVersion},
          {"benchmark", "latency"},
          {"complete", complete},
          {"metadata", context_to_json(ctx)},
          {"config", latency_config_to_json(config)},
          {"points", points},
          {"ratios", ratios},
          {"timing", {{"wall_s", wall_s}}}};
}

}  // namespace overlap::output
