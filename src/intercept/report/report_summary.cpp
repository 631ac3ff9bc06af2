#include "intercept/report/report_summary.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <map>

namespace overlap::intercept {

namespace {
using nlohmann::json;

std::string micro(double s) {
  if (s >= 1e-3) return fmt::format("{:.2f} ms", s * 1e3);
  return fmt::format("{:.1f} us", s * 1e6);
}

// The program's own collectives liboverlap has, per call site over all ranks: routed to
// liboverlap's, or MPI's own and why (a routed blocking one's deferral is in the call
// sites' table).
std::string collectives_text(const json& report) {
  struct Row {
    std::uint64_t calls = 0, routed = 0, waited = 0;
    std::map<std::string, std::uint64_t> own;
    double median_lo = 0, median_hi = 0;  // over the ranks' median wait windows
  };
  std::map<std::pair<std::string, std::string>, Row> rows;
  for (const json& r : report["ranks"]) {
    if (!r.contains("collective_sites")) continue;
    for (const json& s : r["collective_sites"]) {
      Row& row = rows[{s["call"].get<std::string>(), s["site"]["text"].get<std::string>()}];
      row.calls += s["calls"].get<std::uint64_t>();
      row.routed += s["routed"].get<std::uint64_t>();
      for (const auto& [name, n] : s["mpi_own"].items()) row.own[name] += n.get<std::uint64_t>();
      if (!s.contains("wait_window_s") || !s["wait_window_s"].is_object()) continue;
      const json& w = s["wait_window_s"];
      const double median = w["median"].get<double>();
      row.median_lo = row.waited == 0 ? median : std::min(row.median_lo, median);
      row.median_hi = row.waited == 0 ? median : std::max(row.median_hi, median);
      row.waited += w["completed"].get<std::uint64_t>();
    }
  }
  std::string out;
  if (rows.empty()) return out;
  out += fmt::format("  {:<38} {:>8} {:>28}\n", "collective (all ranks)", "calls",
                     "routed to liboverlap's");
  int shown = 0;
  for (const auto& [key, row] : rows) {
    if (++shown > 8) {
      out += fmt::format("  ... {} more collective call sites in the report\n", rows.size() - 8);
      break;
    }
    const std::string name = key.first + " " + key.second;
    out += fmt::format("  {:<38} {:>8} {:>28}\n", name.substr(0, 38), row.calls, row.routed);
    for (const auto& [reason, n] : row.own)
      out += fmt::format("      MPI's own {}x: {}\n", n, reason);
    if (row.waited > 0) {  // the computation each request could overlap
      const std::string lo = micro(row.median_lo), hi = micro(row.median_hi);
      const std::string median = lo == hi ? lo : lo + " to " + hi + " over ranks";
      out += fmt::format("      {} waited; from call to wait: median {}\n", row.waited, median);
    }
  }
  return out;
}

}  // namespace

std::string summary_text(const json& report, const std::string& path) {
  const json& meta = report["metadata"];
  std::string out = fmt::format("overlap-run: {} ranks, progress {}, min size {} B; report {}\n",
                                meta["processes"].get<int>(), meta["progress"].get<std::string>(),
                                meta["min_size_bytes"].get<long>(), path);
  // Per call and location over all ranks.
  struct Row {
    std::uint64_t calls = 0, deferred = 0, touched = 0, faults = 0, completed = 0;
    double stall = 0, window_sum = 0;
    std::map<std::string, std::uint64_t> reasons;
  };
  std::map<std::pair<std::string, std::string>, Row> rows;
  for (const json& r : report["ranks"]) {
    for (const json& s : r["call_sites"]) {
      Row& row = rows[{s["call"].get<std::string>(), s["site"]["text"].get<std::string>()}];
      row.calls += s["calls"].get<std::uint64_t>();
      row.deferred += s["deferred"].get<std::uint64_t>();
      row.touched += s["touched_before_completion"].get<std::uint64_t>();
      row.faults += s["faults"].get<std::uint64_t>();
      row.stall += s["stall_s"].get<double>();
      const auto completed = s["completed"].get<std::uint64_t>();
      row.completed += completed;
      row.window_sum += s["window_s"]["mean"].get<double>() * static_cast<double>(completed);
      for (const auto& [name, n] : s["not_deferred"].items())
        row.reasons[name] += n.get<std::uint64_t>();
    }
  }
  out += fmt::format("  {:<38} {:>8} {:>9} {:>12} {:>9} {:>10}\n", "call site (all ranks)", "calls",
                     "deferred", "mean window", "touched", "stalled");
  int shown = 0;
  for (const auto& [key, row] : rows) {
    if (++shown > 12) {
      out += fmt::format("  ... {} more call sites in the report\n", rows.size() - 12);
      break;
    }
    const std::string name = key.first + " " + key.second;
    out += fmt::format(
        "  {:<38} {:>8} {:>9} {:>12} {:>9} {:>10}\n", name.substr(0, 38), row.calls, row.deferred,
        row.completed ? micro(row.window_sum / static_cast<double>(row.completed)) : "-",
        row.touched, micro(row.stall));
    for (const auto& [reason, n] : row.reasons) {
      out += fmt::format("      not deferred {}x: {}\n", n, reason);
    }
  }
  // The program's own partitioned requests that liboverlap's layer served.
  std::uint64_t routed = 0;
  for (const json& r : report["ranks"]) routed += r.value("partitioned_routed", std::uint64_t{0});
  if (routed > 0)
    out += fmt::format(
        "  partitioned: {} requests (all ranks) routed to liboverlap's partitioned layer\n",
        routed);
  out += collectives_text(report);
  // Where the program first touched buffers in flight: the most frequent place per site,
  // for the lowest rank that has one.
  int lines = 0;
  for (const json& r : report["ranks"]) {
    for (const json& s : r["call_sites"]) {
      if (s["first_touches"].empty() || lines >= 6) continue;
      const json& t = s["first_touches"][0];
      const std::string call = s["call"].get<std::string>();
      const bool send = call == "MPI_Send" || call == "MPI_Rsend" || call == "MPI_Ssend" ||
                        call == "MPI_Bsend" || call == "MPI_Sendrecv (send)";
      const bool recv =
          call == "MPI_Recv" || call == "MPI_Sendrecv (recv)" || call == "MPI_Sendrecv_replace";
      // A blocking collective's send side is copied: only its result is ever touched.
      out +=
          fmt::format("  rank {}: {} buffer of {} touched {} after return at {} ({} of {} times)\n",
                      r["rank"].get<int>(),
                      send   ? "send"
                      : recv ? "recv"
                             : "result",
                      s["site"]["text"].get<std::string>(), micro(t["mean_delay_s"].get<double>()),
                      t["site"]["text"].get<std::string>(), t["count"].get<std::uint64_t>(),
                      s["completed"].get<std::uint64_t>());
      ++lines;
    }
  }
  return out;
}

}  // namespace overlap::intercept
