#include "collectives/cost_params.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdlib>
#include <mutex>
#include <utility>

namespace overlap::collectives {
namespace {

constexpr double kMinLatencyBytes = 512;
constexpr double kMaxLatencyBytes = 16.0 * 1024 * 1024;

using Units = std::initializer_list<std::pair<std::string_view, double>>;
const Units kTimeUnits = {{"ns", 1e-9}, {"us", 1e-6}, {"ms", 1e-3}, {"s", 1.0}};
const Units kRateUnits = {{"B/s", 1.0},  {"kB/s", 1e3},       {"MB/s", 1e6},
                          {"GB/s", 1e9}, {"Mbit/s", 1e6 / 8}, {"Gbit/s", 1e9 / 8}};

std::string allowed(const Units& units) {
  std::string s;
  for (const auto& [name, f] : units) s += (s.empty() ? "" : ", ") + std::string(name);
  return s;
}

// "<positive number><unit>"; nullopt when malformed.
std::optional<double> parse_quantity(std::string_view text, const Units& units) {
  const std::string s(text);
  char* end = nullptr;
  const double v = std::strtod(s.c_str(), &end);
  if (end == s.c_str() || !std::isfinite(v) || v <= 0) return std::nullopt;
  const std::string_view unit(end);
  for (const auto& [name, factor] : units)
    if (unit == name) return v * factor;
  return std::nullopt;
}

std::mutex mu;
CostParams process;  // guarded by mu
std::atomic<bool> called{false};

}  // namespace

const char* cost_source_name(CostSource s) {
  switch (s) {
    case CostSource::environment:
      return "OVERLAP_COST_MODEL";
    case CostSource::measured:
      return "measured";
    case CostSource::defaults:
      break;
  }
  return "default";
}

double latency_bytes(const CostParams& p) {
  return std::clamp(p.latency_s * p.bandwidth, kMinLatencyBytes, kMaxLatencyBytes);
}

CostModelSetting parse_cost_model(std::string_view text) {
  CostModelSetting r;
  if (text.empty() || text == "measure") {
    r.measure = true;
    return r;
  }
  if (text == "default") {
    r.given = CostParams{};
    return r;
  }
  const std::string usage =
      " (allowed: measure, default, or latency=TIME,bandwidth=RATE, e.g. "
      "latency=5us,bandwidth=10GB/s)";
  CostParams p;
  p.source = CostSource::environment;
  bool have_latency = false, have_bandwidth = false;
  while (!text.empty()) {
    const std::size_t comma = text.find(',');
    const std::string_view entry = text.substr(0, comma);
    text = comma == std::string_view::npos ? std::string_view{} : text.substr(comma + 1);
    const std::size_t eq = entry.find('=');
    const std::string_view key = entry.substr(0, eq);
    const std::string_view value =
        eq == std::string_view::npos ? std::string_view{} : entry.substr(eq + 1);
    std::optional<double> v;
    if (key == "latency" && (v = parse_quantity(value, kTimeUnits))) {
      p.latency_s = *v;
      have_latency = true;
    } else if (key == "bandwidth" && (v = parse_quantity(value, kRateUnits))) {
      p.bandwidth = *v;
      have_bandwidth = true;
    } else if (key == "latency" || key == "bandwidth") {
      r.error = "OVERLAP_COST_MODEL: '" + std::string(entry) + "' needs a positive number and " +
                (key == "latency" ? "a time unit (" + allowed(kTimeUnits) + ")"
                                  : "a rate unit (" + allowed(kRateUnits) + ")");
      return r;
    } else {
      r.error = "OVERLAP_COST_MODEL: '" + std::string(entry) + "' is not understood" + usage;
      return r;
    }
  }
  if (!have_latency || !have_bandwidth) {
    r.error = std::string("OVERLAP_COST_MODEL: ") + (have_latency ? "bandwidth" : "latency") +
              " is missing" + usage;
    return r;
  }
  r.given = p;
  return r;
}

CostParams combine(const CostParams& a, const CostParams& b) {
  CostParams c;
  c.latency_s = std::max(a.latency_s, b.latency_s);
  c.bandwidth = std::min(a.bandwidth, b.bandwidth);
  c.source = std::max(a.source, b.source);
  return c;
}

CostParams process_cost_params() {
  std::lock_guard lock(mu);
  return process;
}

void set_process_cost_params(const CostParams& p) {
  std::lock_guard lock(mu);
  process = p;
}

void note_collective_called() { called.store(true, std::memory_order_relaxed); }
bool collective_called() { return called.load(std::memory_order_relaxed); }

}  // namespace overlap::collectives
