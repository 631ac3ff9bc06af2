#include "intercept/report/run_report.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <map>
#include <vector>

#include "base/cpu_list.hpp"
#include "base/slurm_job.hpp"
#include "intercept/calls/collective_routes.hpp"
#include "intercept/calls/partitioned_routes.hpp"
#include "intercept/report/report_summary.hpp"
#include "intercept/report/symbolizer.hpp"
#include "intercept/runtime/core_runtime.hpp"
#include "intercept/runtime/program_requests.hpp"
#include "progress/thread_level.hpp"

namespace overlap::intercept {

namespace {

using nlohmann::json;

json location_json(const SourceLocation& loc, std::uintptr_t address) {
  json j;
  j["address"] = fmt::format("{:#x}", address);
  j["text"] = loc.text();
  if (!loc.file.empty()) j["file"] = loc.file;
  if (loc.line > 0) j["line"] = loc.line;
  if (!loc.function.empty()) j["function"] = loc.function;
  if (!loc.object.empty()) j["object"] = loc.object;
  return j;
}

json site_json(const SiteStats& s, const Symbolizer& symbols) {
  json j;
  j["call"] = std::string(call_name(s.call));
  j["site"] = location_json(symbols.locate(s.site, true), s.site);
  j["calls"] = s.calls;
  j["bytes"] = s.bytes;
  j["deferred"] = s.deferred;
  j["deferred_by_copy"] = s.deferred_by_copy;
  json reasons = json::object();
  for (int r = 0; r < kReasonCount; ++r) {
    if (s.not_deferred[r] > 0)
      reasons[std::string(reason_name(static_cast<Reason>(r)))] = s.not_deferred[r];
  }
  j["not_deferred"] = reasons;
  j["completed"] = s.completed;
  j["touched_before_completion"] = s.touched_before_completion;
  j["faults"] = s.faults;
  j["stall_s"] = s.stall_s;
  j["window_s"] = {
      {"median", median_window(s)},
      {"mean", s.completed > 0 ? s.window_sum_s / static_cast<double>(s.completed) : 0.0},
      {"min", s.window_min_s},
      {"max", s.window_max_s}};
  std::vector<std::pair<std::uintptr_t, TouchSite>> touches(s.touches.begin(), s.touches.end());
  std::sort(touches.begin(), touches.end(),
            [](const auto& a, const auto& b) { return a.second.count > b.second.count; });
  json first = json::array();
  for (const auto& [pc, t] : touches) {
    json tj;
    tj["site"] = location_json(symbols.locate(pc, false), pc);
    tj["count"] = t.count;
    tj["mean_delay_s"] = t.delay_sum_s / static_cast<double>(t.count);
    tj["min_delay_s"] = t.delay_min_s;
    first.push_back(tj);
  }
  j["first_touches"] = first;
  return j;
}

// The program's own nonblocking collectives: routed to liboverlap or MPI's own, and why.
json collective_site_json(const CollectiveSite& s, const Symbolizer& symbols) {
  json j;
  j["call"] = std::string(collective_name(s.call));
  j["site"] = location_json(symbols.locate(s.site, true), s.site);
  j["calls"] = s.calls;
  j["routed"] = s.routed;
  json own = json::object();
  for (int r = 0; r < kOwnReasonCount; ++r) {
    if (s.own[r] > 0) own[std::string(own_reason_name(static_cast<OwnReason>(r)))] = s.own[r];
  }
  j["mpi_own"] = own;
  if (!s.operation_note.empty()) j["operation_note"] = s.operation_note;
  if (s.call < Collective::bcast) {  // nonblocking: its messages and wait windows
    j["accepted"] = s.accepted;
    j["bytes"] = s.bytes;
    const WaitWindow::Summary& w = s.wait_window;
    if (w.count == 0) {
      j["wait_window_s"] = nullptr;
    } else {
      j["wait_window_s"] = {{"completed", w.count},
                            {"median", w.median_s},
                            {"mean", w.mean_s},
                            {"min", w.min_s},
                            {"max", w.max_s}};
    }
  }
  return j;
}

json rank_json(Runtime& rt, int rank) {
  const Symbolizer symbols;
  json r;
  r["rank"] = rank;
  char host[256] = {};
  gethostname(host, sizeof host - 1);
  r["host"] = host;
  r["pid"] = rt.pid;
  r["cpus"] = affinity_cpu_list();  // the launcher's or Slurm's binding
  json sites = json::array();
  std::uint64_t faults = 0;
  double stall = 0;
  for (const SiteStats& s : rt.sites.snapshot()) {
    sites.push_back(site_json(s, symbols));
    faults += s.faults;
    stall += s.stall_s;
  }
  r["call_sites"] = sites;
  r["faults"] = faults;
  r["stall_s"] = stall;
  r["partitioned_routed"] = partitioned_routed();
  json collectives = json::array();
  for (const CollectiveSite& s : collective_sites())
    collectives.push_back(collective_site_json(s, symbols));
  r["collective_sites"] = collectives;
  r["collectives_routed"] = collectives_routed();
  // The program's own requests (one per nonblocking call or persistent init), which the
  // engine progresses while outstanding.
  r["program_requests"] = program_requests().tracked();
  // How received data reached the program's pages (placement.hpp).
  r["placed_by_move"] = rt.placed_by_move.load();
  r["placed_by_copy"] = rt.placed_by_copy.load();
  if (rt.settings.move_pages) {
    nlohmann::json copied = nlohmann::json::object();
    for (std::size_t i = 0; i < kReceiveCopyKinds; ++i) {
      copied[receive_copy_name(static_cast<ReceiveCopy>(i))] = rt.copied_because[i].load();
    }
    r["copied_because"] = std::move(copied);
  }
  if (const CopyReason why = rt.copy_reason.load();
      rt.settings.move_pages && why != CopyReason::none) {
    r["place_note"] = copy_reason_text(why, rt.copy_detail.load());
  }
  return r;
}

json metadata(Runtime& rt, int size) {
  json m;
  m["processes"] = size;
  // The Slurm job the ranks ran in, as overlap-bench records it (metadata.placement.slurm),
  // or null.
  const std::optional<SlurmJob> job = slurm_job();
  m["slurm"] = job ? slurm_job_schema().to_json(*job) : json(nullptr);
  m["mpi_flavor"] = OVERLAP_MPI_FLAVOR;
  char lib[MPI_MAX_LIBRARY_VERSION_STRING] = {};
  int len = 0;
  PMPI_Get_library_version(lib, &len);
  std::string first_line(lib, static_cast<std::size_t>(std::max(0, len)));
  first_line = first_line.substr(0, first_line.find('\n'));
  m["mpi_library"] = first_line;
  m["thread_level"] = progress::thread_level_name(rt.program_provided);
  m["mpi_thread_level"] = progress::thread_level_name(rt.mpi_provided);
  m["progress"] = std::string(policy_name(rt.policy));
  m["progress_mechanism"] = rt.progress_mechanism;
  if (!rt.policy_note.empty()) m["progress_note"] = rt.policy_note;
  if (!rt.policy_reason.empty()) m["progress_reason"] = rt.policy_reason;
  // docs/overlap-run.md, "UCX's memory hooks".
  if (rt.memory_hooks_mirrored > 0) m["memory_hooks_mirrored"] = rt.memory_hooks_mirrored;
  if (!rt.memory_hooks_failure.empty()) {
    m["memory_hooks_note"] =
        "UCX's memory hooks could not all be checked on overlap-run's wrappers or put on "
        "libc's functions (" +
        rt.memory_hooks_failure +
        "): memory glibc unmaps itself may not be announced to UCX's registration cache";
  }
  m["min_size_bytes"] = rt.settings.min_bytes;
  m["defer"] = families_text(rt.settings.families);
  // Who served the program's own MPI_Psend_init family: liboverlap's layer or MPI's.
  const bool routed = partitioned_routing_compiled() && rt.settings.partitioned_overlap;
  m["partitioned"] = routed ? "overlap" : "mpi";
  m["collectives"] = rt.settings.collectives_overlap ? "overlap" : "mpi";
  if (!partitioned_routing_compiled() && rt.settings.partitioned_overlap)
    m["partitioned_note"] = "this MPI has no partitioned API (MPI_VERSION < 4): nothing to route";
  m["place"] = rt.settings.move_pages ? "move" : "copy";
  m["command"] = rt.argv;
  m["overlap_version"] = OVERLAP_VERSION;
  const std::time_t now = std::time(nullptr);
  char date[64] = {};
  std::strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
  m["date"] = date;
  return m;
}

void write_atomically(const std::string& path, const std::string& text) {
  const std::string tmp = path + ".tmp";
  {
    std::ofstream out(tmp, std::ios::trunc);
    out << text << '\n';
    if (!out) {
      std::fprintf(stderr, "overlap-run: cannot write the report %s\n", path.c_str());
      return;
    }
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    std::fprintf(stderr, "overlap-run: cannot write the report %s\n", path.c_str());
  }
}

void write_gathered_report(Runtime& rt) {
  int rank = 0, size = 1;
  PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
  PMPI_Comm_size(MPI_COMM_WORLD, &size);
  const std::string mine = rank_json(rt, rank).dump();
  int len = static_cast<int>(mine.size());
  std::vector<int> lens(static_cast<std::size_t>(size)), offsets(static_cast<std::size_t>(size));
  PMPI_Gather(&len, 1, MPI_INT, lens.data(), 1, MPI_INT, 0, MPI_COMM_WORLD);
  std::string all;
  if (rank == 0) {
    int total = 0;
    for (int i = 0; i < size; ++i) {
      offsets[static_cast<std::size_t>(i)] = total;
      total += lens[static_cast<std::size_t>(i)];
    }
    all.resize(static_cast<std::size_t>(total));
  }
  PMPI_Gatherv(mine.data(), len, MPI_CHAR, all.data(), lens.data(), offsets.data(), MPI_CHAR, 0,
               MPI_COMM_WORLD);
  if (rank != 0) return;
  json doc;
  doc["schema_version"] = 1;
  doc["benchmark"] = "overlap-run";
  doc["metadata"] = metadata(rt, size);
  json ranks = json::array();
  for (int i = 0; i < size; ++i) {
    ranks.push_back(
        json::parse(all.substr(static_cast<std::size_t>(offsets[static_cast<std::size_t>(i)]),
                               static_cast<std::size_t>(lens[static_cast<std::size_t>(i)]))));
  }
  doc["ranks"] = ranks;
  bool reached = false;  // did any call of the program reach overlap-run on any rank?
  for (const json& r : doc["ranks"]) {
    reached = reached || r.value("program_requests", 0) > 0 || r.value("partitioned_routed", 0) > 0;
    for (const json& site : r["call_sites"]) reached = reached || site.value("calls", 0) > 0;
  }
  doc["metadata"]["intercepted"] = reached;
  write_atomically(rt.settings.report, doc.dump(2));
  std::fputs(summary_text(doc, rt.settings.report).c_str(), stderr);
  std::fflush(stderr);
}

// A run in which no call of the program reached overlap-run says so (docs/overlap-run.md,
// "When nothing reaches overlap-run"), from rank 0's view: with or without a report.
void say_if_nothing_reached(Runtime& rt) {
  int rank = 0;
  PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank != 0 || program_requests().tracked() > 0 || partitioned_routed() > 0) return;
  for (const SiteStats& s : rt.sites.snapshot())
    if (s.calls > 0) return;
  std::fputs(
      "overlap-run: no point-to-point, nonblocking or large enough collective call of the "
      "program reached overlap-run on rank 0, so nothing was overlapped there (overlap-run "
      "defers blocking point-to-point calls, and collectives from --min-size on, and "
      "progresses the program's own requests; calls the program makes under their PMPI_ "
      "names go past it)\n",
      stderr);
  std::fflush(stderr);
}

}  // namespace

// Rank 0 writes the file after the gather while the other ranks would already be in
// MPI_Finalize: MPICH 4.0.2 over UCX/TCP then hangs there now and then, one rank closing
// its endpoints while another is still busy. So every rank waits until the report is
// written and they finalize together, as without a report (with the engine's thread gone
// too, core_calls.cpp; on the emulated cluster: 1 of 280 runs hung, against 6 of 80
// without this barrier and 21 of 210 before either).
void write_run_report(Runtime& rt) {
  say_if_nothing_reached(rt);
  if (rt.settings.report.empty()) return;
  write_gathered_report(rt);
  PMPI_Barrier(MPI_COMM_WORLD);
}

}  // namespace overlap::intercept
