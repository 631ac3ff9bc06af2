#include "output/sync_json.hpp"

#include "output/result_json.hpp"

namespace overlap::output {

nlohmann::json sync_to_json(const bench::RunContext& ctx, const bench::SyncRecord& record) {
  const auto& c = record.config;
  nlohmann::json ranks = nlohmann::json::array();
  for (const auto& r : record.ranks) {
    ranks.push_back({{"rank", r.rank},
                     {"host", ctx.hosts.at(static_cast<std::size_t>(r.rank))},
                     {"offset_s", r.offset_s},
                     {"drift_ppm", r.drift_ppm},
                     {"rtt_min_s", r.rtt_min_s},
                     {"residual_offset_only_s", r.residual_offset_only_s},
                     {"residual_drift_s", r.residual_drift_s},
                     {"residual_drift_other_scheme_s", r.residual_drift_other_s}});
  }
  return {{"schema_version", kSyncSchemaVersion},
          {"benchmark", "sync"},
          {"metadata", context_to_json(ctx)},
          {"config",
           {{"patience", c.estimator.patience},
            {"passes", c.passes},
            {"span_s", c.span_s},
            {"verify_after_s", c.verify_after_s},
            {"barrier_iterations", c.barrier_iterations},
            {"model_scheme", std::string(clock::to_string(c.model_scheme))}}},
          {"trivial", record.trivial},
          {"verify_elapsed_s", record.verify_elapsed_s},
          {"ranks", ranks},
          {"sync_time_log_s", record.log.sync_time_s},
          {"sync_time_linear_s", record.linear.sync_time_s},
          {"steps_log", record.log.steps},
          {"steps_linear", record.linear.steps},
          {"exchanges_log", record.log.exchanges},
          {"exchanges_linear", record.linear.exchanges},
          {"barrier_skew_s", record.barrier_skew_s},
          {"mpi_barrier_skew_s", record.mpi_barrier_skew_s},
          {"barrier_late_iterations", record.barrier_late_iterations},
          {"barrier_final_window_s", record.barrier_final_window_s}};
}

}  // namespace overlap::output
