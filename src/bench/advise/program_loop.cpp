#include "bench/advise/program_loop.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <vector>

#include "base/duration.hpp"
#include "base/usage_error.hpp"

namespace overlap::bench {
namespace {

using nlohmann::json;

[[noreturn]] void refuse(const std::string& path, const std::string& why) {
  throw UsageError("--from: " + path + " " + why);
}

// "MPI_Iallreduce" -> the collective nbc calls "iallreduce"; none for other calls.
std::optional<Collective> nonblocking_of(const std::string& call) {
  if (call.rfind("MPI_I", 0) != 0) return std::nullopt;
  std::string name = call.substr(4);
  std::transform(name.begin(), name.end(), name.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return kNonblockingNames.parse(name);
}

std::string site_text(const json& site) {
  if (site.is_object()) {
    if (site.contains("text") && site["text"].is_string()) return site["text"].get<std::string>();
    if (site.contains("address") && site["address"].is_string())
      return site["address"].get<std::string>();
  }
  return "(unknown site)";
}

double median_of(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

// One call site over every rank that has it.
struct Site {
  Collective op = Collective::allreduce;
  std::string call, where;
  std::uint64_t accepted = 0, bytes = 0, waits = 0;
  double window_total_s = 0;           // sum over ranks of completed x mean
  std::vector<double> rank_medians_s;  // one per rank with completions
};

double number(const json& j, const char* key) {
  return j.contains(key) && j[key].is_number() ? j[key].get<double>() : 0.0;
}

std::map<std::pair<std::string, std::string>, Site> sites_of(const json& doc,
                                                             std::optional<Collective> only,
                                                             bool& any_window_field) {
  std::map<std::pair<std::string, std::string>, Site> sites;
  for (const json& rank : doc["ranks"]) {
    if (!rank.is_object() || !rank.contains("collective_sites")) continue;
    for (const json& s : rank["collective_sites"]) {
      if (!s.is_object() || !s.contains("call") || !s["call"].is_string()) continue;
      const std::string call = s["call"].get<std::string>();
      const auto op = nonblocking_of(call);
      if (!op) continue;
      if (s.contains("wait_window_s")) any_window_field = true;
      if (only && *op != *only) continue;
      const json& w = s.contains("wait_window_s") ? s["wait_window_s"] : json();
      if (!w.is_object() || number(w, "completed") < 1) continue;
      Site& site = sites[{call, site_text(s.contains("site") ? s["site"] : json())}];
      site.op = *op;
      site.call = call;
      site.where = site_text(s.contains("site") ? s["site"] : json());
      site.accepted += static_cast<std::uint64_t>(number(s, "accepted"));
      site.bytes += static_cast<std::uint64_t>(number(s, "bytes"));
      const double completed = number(w, "completed");
      site.waits += static_cast<std::uint64_t>(completed);
      site.window_total_s += completed * number(w, "mean");
      site.rank_medians_s.push_back(number(w, "median"));
    }
  }
  return sites;
}

}  // namespace

ProgramLoop program_loop_from_report(std::string_view text, const std::string& path,
                                     std::optional<Collective> op) {
  json doc;
  try {
    doc = json::parse(text);
  } catch (const json::exception& e) {
    refuse(path, std::string("is not JSON (") + e.what() + ")");
  }
  if (!doc.is_object() || !doc.contains("benchmark") || doc["benchmark"] != "overlap-run") {
    const std::string kind = doc.is_object() && doc.contains("benchmark") ? doc["benchmark"].dump()
                                                                          : std::string("missing");
    refuse(path, "is not a report of overlap-run (its benchmark is " + kind +
                     "): write one with overlap-run --report FILE -- ./program");
  }
  if (!doc.contains("ranks") || !doc["ranks"].is_array() || doc["ranks"].empty()) {
    refuse(path,
           "has no ranks: none of the program's calls reached overlap-run (its note "
           "says why)");
  }
  bool any_window_field = false;
  const auto sites = sites_of(doc, op, any_window_field);
  if (sites.empty()) {
    if (!any_window_field) {
      refuse(path,
             "has no nonblocking collective with wait windows (none called, or a report "
             "of an overlap-run before wait_window_s): run the program again under this "
             "overlap-run, or give --op, --size and --comp-time");
    }
    refuse(path, "has no " + std::string(op ? kNonblockingNames.name(*op) : "nonblocking") +
                     " collective whose request the program completed with MPI_Wait or "
                     "MPI_Test: give --op, --size and --comp-time instead");
  }
  // The site with the most time between call and wait over all ranks; ties: most waits.
  const Site* best = nullptr;
  for (const auto& [key, s] : sites) {
    if (best == nullptr || s.window_total_s > best->window_total_s ||
        (s.window_total_s == best->window_total_s && s.waits > best->waits))
      best = &s;
  }
  ProgramLoop loop;
  loop.op = best->op;
  loop.site = best->call + " at " + best->where;
  loop.waits = best->waits;
  loop.ranks = static_cast<int>(best->rank_medians_s.size());
  loop.comp_s = median_of(best->rank_medians_s);
  if (!(loop.comp_s > 0)) refuse(path, "gives " + loop.site + " no time between call and wait");
  if (best->op != Collective::barrier) {
    if (best->accepted == 0 || best->bytes == 0)
      refuse(path, "gives " + loop.site + " no message bytes");
    loop.msg_bytes = static_cast<long>(
        std::llround(static_cast<double>(best->bytes) / static_cast<double>(best->accepted)));
  }
  std::string option_time = format_duration(loop.comp_s);  // "2.03 ms" -> "2.03ms"
  option_time.erase(std::remove(option_time.begin(), option_time.end(), ' '), option_time.end());
  loop.summary = fmt::format(
      "the loop of {}: {} ({} requests completed on {} rank{}){}, {} median between call and "
      "wait: --op {}{} --comp-time {}",
      path, loop.site, loop.waits, loop.ranks, loop.ranks == 1 ? "" : "s",
      loop.msg_bytes ? fmt::format(", {} B per call", *loop.msg_bytes) : std::string(),
      format_duration(loop.comp_s), kNonblockingNames.name(loop.op),
      loop.msg_bytes ? fmt::format(" --size {}", *loop.msg_bytes) : std::string(), option_time);
  if (sites.size() > 1) {
    loop.summary +=
        fmt::format(" (the busiest of {} sites; --op picks another collective)", sites.size());
  }
  return loop;
}

ProgramLoop read_program_loop(const std::string& path, std::optional<Collective> op) {
  std::ifstream in(path);
  if (!in) refuse(path, "cannot be read");
  std::ostringstream text;
  text << in.rdbuf();
  return program_loop_from_report(text.str(), path, op);
}

}  // namespace overlap::bench
