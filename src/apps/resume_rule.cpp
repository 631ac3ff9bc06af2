#include "apps/resume_rule.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "base/usage_error.hpp"
#include "output/console_table.hpp"

namespace overlap::apps {
namespace {

// A configuration value as a user reads it: units, lists joined with commas.
std::string shown(const nlohmann::json& v, Unit unit) {
  if (!v.is_array()) return output::format_value(v, unit);
  std::string s;
  for (const auto& e : v) s += (s.empty() ? "" : ",") + output::format_value(e, unit);
  return s.empty() ? "(none)" : s;
}

// Values compared the way they were parsed: numbers within a relative 1e-9 (the file holds
// what the same text parsed to, so 16ms and 0.016s agree), lists element by element.
bool same_setting(const nlohmann::json& a, const nlohmann::json& b) {
  if (a.is_number() && b.is_number()) {
    const double x = a.get<double>(), y = b.get<double>();
    return std::abs(x - y) <= 1e-9 * std::max(std::abs(x), std::abs(y));
  }
  if (a.is_array() && b.is_array()) {
    if (a.size() != b.size()) return false;
    for (std::size_t i = 0; i < a.size(); ++i) {
      if (!same_setting(a[i], b[i])) return false;
    }
    return true;
  }
  return a == b;
}

// Plain and intercepted points, or points under different overlap-run settings, would
// be one sweep of two different programs.
std::string overlap_run_mismatch(const std::optional<bench::OverlapRunSettings>& recorded,
                                 const std::optional<bench::OverlapRunSettings>& now) {
  if (recorded && !now) return "it was measured under overlap-run, this run is not";
  if (!recorded && now) return "it was measured without overlap-run, this run is under it";
  if (!recorded) return "";
  if (recorded->progress != now->progress) {
    return fmt::format("it was measured under overlap-run --progress {}, this run has {}",
                       recorded->progress, now->progress);
  }
  if (recorded->min_size_bytes != now->min_size_bytes) {
    return fmt::format("it was measured under overlap-run --min-size {} B, this run has {} B",
                       recorded->min_size_bytes, now->min_size_bytes);
  }
  if (recorded->defer != now->defer) {
    return fmt::format("it was measured under overlap-run --defer {}, this run has {}",
                       recorded->defer, now->defer);
  }
  return "";
}

}  // namespace

void check_repeated_options(const OptionValues& values, const std::vector<FieldDoc>& config,
                            const nlohmann::json& asked, const nlohmann::json& recorded,
                            const std::string& path) {
  for (const OptionSpec& spec : values.specs()) {
    const auto typed = values.typed(spec.name);
    if (!typed || spec.config_field.empty()) continue;
    Unit unit = Unit::none;
    for (const FieldDoc& f : config) {
      if (f.name == spec.config_field) unit = f.unit;
    }
    const nlohmann::json& mine = asked.at(spec.config_field);
    const nlohmann::json file =
        recorded.contains(spec.config_field) ? recorded.at(spec.config_field) : nlohmann::json();
    if (same_setting(mine, file)) continue;
    throw UsageError(fmt::format(
        "{} {}: the run recorded in '{}' has {} {}, and --resume continues that run (repeat "
        "its value or leave the option out; start a new run to change it)",
        spec.name, *typed, path, spec.name, shown(file, unit)));
  }
}

std::string resume_mismatch(const bench::RunContext& recorded, const bench::RunContext& now) {
  if (recorded.size != now.size) {
    return fmt::format("it was measured with {} processes, this run has {}", recorded.size,
                       now.size);
  }
  if (recorded.mpi_library != now.mpi_library) {
    return fmt::format("it was measured with '{}', this run uses '{}'", recorded.mpi_library,
                       now.mpi_library);
  }
  if (recorded.threads != now.threads) {
    return fmt::format("it was measured with {} threads per rank, this run has {}",
                       recorded.threads, now.threads);
  }
  return overlap_run_mismatch(recorded.overlap_run, now.overlap_run);
}

}  // namespace overlap::apps
