#include "output/nbc_json.hpp"

#include "base/usage_error.hpp"
#include "output/result_json.hpp"

namespace overlap::output {
namespace {

using nlohmann::json;

template <typename T>
json or_null(const std::optional<T>& v) {
  return v ? json(*v) : json(nullptr);
}

template <typename T>
std::optional<T> optional_from(const json& j, const char* key) {
  if (!j.contains(key) || j.at(key).is_null()) return std::nullopt;
  return j.at(key).get<T>();
}

measure::Diagnosis diagnosis_from(const std::string& name) {
  for (auto d : {measure::Diagnosis::overlap, measure::Diagnosis::partial_overlap,
                 measure::Diagnosis::no_progression, measure::Diagnosis::computation_slowdown,
                 measure::Diagnosis::contention_without_overlap, measure::Diagnosis::invalid}) {
    if (measure::to_string(d) == name) return d;
  }
  throw UsageError("unknown diagnosis '" + name + "'");
}

}  // namespace

json nbc_point_to_json(const bench::NbcPointRecord& p) {
  const auto& t = p.times;
  const auto measured = [&](double v) { return p.valid ? json(v) : json(nullptr); };
  return {{"impl", std::string(bench::to_string(p.key.impl))},
          {"op", std::string(bench::to_string(p.key.op))},
          {"target_comm_s", p.key.target_comm_s},
          {"target_comp_s", p.key.target_comp_s},
          {"valid", p.valid},
          {"invalid_reason", p.invalid_reason},
          {"msg_bytes", or_null(p.msg_bytes)},
          {"comp_size", or_null(p.comp_size)},
          {"iterations", p.iterations},
          {"t_comm_ref_s", measured(t.t_comm_ref)},
          {"t_comp_ref_s", measured(t.t_comp_ref)},
          {"t_measured_s", measured(t.t_measured)},
          {"t_measured_p25_s", measured(p.t_measured_p25_s)},
          {"t_measured_p75_s", measured(p.t_measured_p75_s)},
          {"t_call_s", measured(t.t_call)},
          {"t_comp_s", measured(t.t_comp)},
          {"t_wait_s", measured(t.t_wait)},
          {"r_overhead", p.valid ? or_null(p.r_overhead) : json(nullptr)},
          {"r_comm", p.valid ? or_null(p.r_comm) : json(nullptr)},
          {"r_comp_slowdown", p.valid ? or_null(p.r_comp_slowdown) : json(nullptr)},
          {"osu_overlap_pct", p.valid ? or_null(p.osu_overlap_pct) : json(nullptr)},
          {"imb_overlap_pct", p.valid ? or_null(p.imb_overlap_pct) : json(nullptr)},
          {"diagnosis", std::string(measure::to_string(p.diagnosis))},
          {"diagnosis_text",
           p.valid ? std::string(measure::explain(p.diagnosis)) : "Invalid: " + p.invalid_reason},
          {"calibration_s", p.calibration_s},
          {"elapsed_s", p.elapsed_s}};
}

bench::NbcPointRecord nbc_point_from_json(const json& j) {
  bench::NbcPointRecord p;
  const std::string op = j.at("op").get<std::string>();
  const auto parsed = bench::parse_nbc_op(op);
  if (!parsed) throw UsageError("unknown op '" + op + "'");
  // Files written before liboverlap existed have no "impl": they measured MPI's own.
  const std::string impl = j.value("impl", "mpi");
  const auto parsed_impl = bench::parse_nbc_impl(impl);
  if (!parsed_impl) throw UsageError("unknown impl '" + impl + "'");
  p.key = {*parsed_impl, *parsed, j.at("target_comm_s").get<double>(),
           j.at("target_comp_s").get<double>()};
  p.valid = j.at("valid").get<bool>();
  p.invalid_reason = j.value("invalid_reason", "");
  p.msg_bytes = optional_from<long>(j, "msg_bytes");
  p.comp_size = optional_from<int>(j, "comp_size");
  p.iterations = j.value("iterations", 0);
  if (p.valid) {
    p.times = {j.at("t_comm_ref_s").get<double>(), j.at("t_comp_ref_s").get<double>(),
               j.at("t_measured_s").get<double>(), j.at("t_call_s").get<double>(),
               j.at("t_comp_s").get<double>(),     j.at("t_wait_s").get<double>()};
    p.t_measured_p25_s = j.at("t_measured_p25_s").get<double>();
    p.t_measured_p75_s = j.at("t_measured_p75_s").get<double>();
  }
  p.r_overhead = optional_from<double>(j, "r_overhead");
  p.r_comm = optional_from<double>(j, "r_comm");
  p.r_comp_slowdown = optional_from<double>(j, "r_comp_slowdown");
  p.osu_overlap_pct = optional_from<double>(j, "osu_overlap_pct");
  p.imb_overlap_pct = optional_from<double>(j, "imb_overlap_pct");
  p.diagnosis = diagnosis_from(j.at("diagnosis").get<std::string>());
  p.calibration_s = j.value("calibration_s", 0.0);
  p.elapsed_s = j.value("elapsed_s", 0.0);
  return p;
}

json nbc_config_to_json(const bench::NbcConfig& c) {
  json ops = json::array();
  for (auto op : c.ops) ops.push_back(std::string(bench::to_string(op)));
  json impls = json::array();
  for (auto impl : c.impls) impls.push_back(std::string(bench::to_string(impl)));
  return {{"impls", impls},
          {"progress", c.progress},
          {"ops", ops},
          {"comm_times_s", c.comm_times_s},
          {"comp_times_s", c.comp_times_s},
          {"iterations", c.iterations},
          {"warmup", c.warmup},
          {"calibration_runs", c.calibration_runs},
          {"tolerance", c.tolerance},
          {"max_bytes", c.max_bytes},
          {"patience", c.estimator.patience}};
}

json nbc_to_json(const bench::RunContext& ctx, const bench::NbcConfig& config,
                 const std::vector<bench::NbcPointRecord>& points, const NbcRunSummary& s) {
  json meta = context_to_json(ctx);
  meta["clock_sync"] = {{"passes", s.sync.passes},
                        {"max_rtt_s", s.sync.max_rtt_s},
                        {"barrier_late", s.sync.barrier_late},
                        {"barrier_window_s", s.sync.barrier_window_s}};
  json pts = json::array();
  for (const auto& p : points) pts.push_back(nbc_point_to_json(p));
  return {{"schema_version", kNbcSchemaVersion},
          {"benchmark", "nbc"},
          {"complete", s.complete},
          {"metadata", meta},
          {"config", nbc_config_to_json(config)},
          {"points", pts},
          {"timing", {{"wall_s", s.wall_s}, {"calibration_s", s.calibration_s}}}};
}

json impact_to_json(const bench::RunContext& ctx, const bench::ImpactConfig& config,
                    const std::vector<bench::ImpactPoint>& points) {
  json pts = json::array();
  for (const auto& p : points) {
    json ranks = json::array();
    for (const auto& r : p.ranks) {
      ranks.push_back({{"rank", r.rank},
                       {"host", ctx.hosts.at(static_cast<std::size_t>(r.rank))},
                       {"comp_size", r.comp_size},
                       {"t_comp_ref_s", r.t_comp_ref_s},
                       {"t_comp_passive_mpi_s", r.t_comp_passive_mpi_s},
                       {"r_mpi_impact", r.r_mpi_impact}});
    }
    pts.push_back({{"target_comp_s", p.target_comp_s},
                   {"valid", p.valid},
                   {"invalid_reason", p.invalid_reason},
                   {"r_mpi_impact_max", p.valid ? json(p.r_mpi_impact_max) : json(nullptr)},
                   {"r_mpi_impact_median", p.valid ? json(p.r_mpi_impact_median) : json(nullptr)},
                   {"ranks", ranks}});
  }
  return {{"schema_version", kImpactSchemaVersion},
          {"benchmark", "impact"},
          {"complete", true},
          {"metadata", context_to_json(ctx)},
          {"config", {{"comp_times_s", config.comp_times_s}, {"runs", config.runs}}},
          {"points", pts}};
}

}  // namespace overlap::output
