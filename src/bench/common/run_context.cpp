#include "bench/common/run_context.hpp"

#include <algorithm>
#include <array>
#include <chrono>
#include <ctime>
#include <string_view>

extern char** environ;

namespace overlap::bench {
namespace {

std::string first_line(const char* text) {
  std::string s(text);
  const auto end = s.find_first_of("\r\n");
  if (end != std::string::npos) s.resize(end);
  while (!s.empty() && (s.back() == ' ' || s.back() == ',')) s.pop_back();
  return s;
}

std::string utc_now_iso8601() {
  const std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm tm{};
  gmtime_r(&now, &tm);
  std::array<char, 32> buf{};
  std::strftime(buf.data(), buf.size(), "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf.data();
}

// Rank 0's view, so that every rank records (and --resume compares) the same; a run with
// the preload on some ranks only is an odd setup, but must not split the ranks' decisions.
std::optional<OverlapRunSettings> agreed_overlap_run(MPI_Comm comm) {
  const std::optional<OverlapRunSettings> mine = overlap_run_settings();
  std::string text = mine ? overlap_run_settings_schema().to_json(*mine).dump() : "";
  int len = static_cast<int>(text.size());
  MPI_Bcast(&len, 1, MPI_INT, 0, comm);
  text.resize(static_cast<std::size_t>(len));
  MPI_Bcast(text.data(), len, MPI_CHAR, 0, comm);
  if (text.empty()) return std::nullopt;
  return overlap_run_settings_schema().from_json(nlohmann::json::parse(text));
}

}  // namespace

RunContext collect_run_context(MPI_Comm comm, const std::string& clock_source,
                               const std::string& command_line) {
  RunContext ctx;
  std::array<char, MPI_MAX_LIBRARY_VERSION_STRING> lib{};
  int len = 0;
  MPI_Get_library_version(lib.data(), &len);
  ctx.mpi_library = first_line(lib.data());
#if defined(OPEN_MPI)
  ctx.mpi_flavor = "openmpi";
#elif defined(MPICH)
  ctx.mpi_flavor = "mpich";
#else
  ctx.mpi_flavor = "other";
#endif
  int version = 0, subversion = 0;
  MPI_Get_version(&version, &subversion);
  ctx.mpi_standard = std::to_string(version) + "." + std::to_string(subversion);
  MPI_Comm_size(comm, &ctx.size);

  std::array<char, MPI_MAX_PROCESSOR_NAME> name{};
  MPI_Get_processor_name(name.data(), &len);
  std::vector<char> all(static_cast<std::size_t>(ctx.size) * MPI_MAX_PROCESSOR_NAME);
  MPI_Allgather(name.data(), MPI_MAX_PROCESSOR_NAME, MPI_CHAR, all.data(), MPI_MAX_PROCESSOR_NAME,
                MPI_CHAR, comm);
  for (int r = 0; r < ctx.size; ++r) {
    ctx.hosts.emplace_back(&all[static_cast<std::size_t>(r) * MPI_MAX_PROCESSOR_NAME]);
  }
  ctx.clock_source = clock_source;
  ctx.command_line = command_line;
  ctx.started_at = utc_now_iso8601();
  ctx.environment = mpi_environment();
  ctx.label = default_label(ctx.mpi_flavor, ctx.environment);
  ctx.overlap_run = agreed_overlap_run(comm);
  ctx.placement = collect_placement(comm);
  return ctx;
}

std::map<std::string, std::string> mpi_environment() {
  static constexpr std::string_view kPrefixes[] = {"MPICH_",    "MPIR_CVAR_", "MPIR_", "OMPI_MCA_",
                                                   "UCX_",      "OMP_",       "PSM2_", "FI_",
                                                   "OPENBLAS_", "HYDRA_"};
  // Set by the launchers for every run; they say nothing about configuration.
  static constexpr std::string_view kBookkeeping[] = {
      "OMPI_MCA_orte_",        "OMPI_MCA_ess_",
      "OMPI_MCA_pmix",         "OMPI_MCA_mpi_oversubscribe",
      "OMPI_MCA_initial_wdir", "OMPI_MCA_shmem_RUNTIME_QUERY_hint"};
  std::map<std::string, std::string> vars;
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) {
    const std::string_view entry(*e);
    const auto eq = entry.find('=');
    if (eq == std::string_view::npos) continue;
    const std::string_view name = entry.substr(0, eq);
    const auto starts = [&](std::string_view p) { return name.starts_with(p); };
    if (std::none_of(std::begin(kPrefixes), std::end(kPrefixes), starts)) continue;
    if (std::any_of(std::begin(kBookkeeping), std::end(kBookkeeping), starts)) continue;
    vars[std::string(name)] = std::string(entry.substr(eq + 1));
  }
  return vars;
}

std::string default_label(const std::string& flavor,
                          const std::map<std::string, std::string>& environment) {
  std::string label = flavor;
  for (const auto& [name, value] : environment) {
    if ((name == "MPICH_ASYNC_PROGRESS" || name == "MPIR_CVAR_ASYNC_PROGRESS") && value == "1") {
      label += " async-progress";
    }
  }
  return label;
}

std::string thread_level_name(int level) {
  if (level == MPI_THREAD_SINGLE) return "MPI_THREAD_SINGLE";
  if (level == MPI_THREAD_FUNNELED) return "MPI_THREAD_FUNNELED";
  if (level == MPI_THREAD_SERIALIZED) return "MPI_THREAD_SERIALIZED";
  if (level == MPI_THREAD_MULTIPLE) return "MPI_THREAD_MULTIPLE";
  return "unknown";
}

const Schema<ClockSyncQuality>& clock_sync_schema() {
  using Q = ClockSyncQuality;
  static const Schema<Q> s =
      Schema<Q>()
          .add("passes", &Q::passes, Unit::count, "group sync passes so far")
          .add("max_rtt_s", &Q::max_rtt_s, Unit::seconds,
               "worst min-RTT of the last pass over ranks: an upper bound of the offset error")
          .add("barrier_late", &Q::barrier_late, Unit::count,
               "sync barrier calls in which a rank was late")
          .add("barrier_window_s", &Q::barrier_window_s, Unit::seconds,
               "the sync barrier's window at the end");
  return s;
}

const Schema<CostModelFacts>& cost_model_schema() {
  using M = CostModelFacts;
  static const Schema<M> s =
      Schema<M>()
          .add("latency_s", &M::latency_s, Unit::seconds, "one message's latency")
          .add("bandwidth_bytes_per_s", &M::bandwidth, Unit::none, "a link's bandwidth, bytes/s")
          .add("source", &M::source, Unit::none,
               "measured (OVX_Calibrate, agreed by every rank), OVERLAP_COST_MODEL or default");
  return s;
}

const Schema<ProgressChoice>& progress_choice_schema() {
  using M = ProgressChoice;
  static const Schema<M> s =
      Schema<M>()
          .add("policy", &M::policy, Unit::none,
               "liboverlap's progress policy in effect: caller, shared or dedicated")
          .add("reason", &M::reason, Unit::none,
               "why (rank 0): --progress as given, or what auto saw (cores, ranks, threads)");
  return s;
}

const Schema<RunContext>& run_context_schema() {
  using C = RunContext;
  static const Schema<C> s =
      Schema<C>()
          .add("mpi_library", &C::mpi_library, Unit::none, "first line of MPI_Get_library_version")
          .add("mpi_flavor", &C::mpi_flavor, Unit::none, "openmpi, mpich or other")
          .add("mpi_standard", &C::mpi_standard, Unit::none, "e.g. 3.1")
          .add("processes", &C::size, Unit::count, "P")
          .add("hosts", &C::hosts, Unit::none, "host name of each rank, rank order")
          .add("clock_source", &C::clock_source, Unit::none,
               "monotonic, monotonic_raw or mpi_wtime")
          .add("command_line", &C::command_line, Unit::none, "the command as typed")
          .add("started_at", &C::started_at, Unit::none, "ISO 8601 UTC")
          .add("label", &C::label, Unit::none,
               "--label, default: flavor plus notable settings, e.g. mpich async-progress")
          .mapping("environment", &C::environment,
                   "the MPI-related variables that were set (MPICH_*, MPIR_CVAR_*, OMPI_MCA_*, "
                   "UCX_*, OMP_*, ...)")
          .add("thread_level", &C::thread_level, Unit::none,
               "thread support MPI provided, e.g. MPI_THREAD_MULTIPLE")
          .add("threads", &C::threads, Unit::count, "computation threads per rank (0: none)")
          .add("dedicated_cores", &C::dedicated_cores, Unit::count, "--dedicate-cores K")
          .add("thread_pus", &C::thread_pus, Unit::none,
               "rank 0: the hardware threads each computation thread is bound to while it "
               "computes (e.g. \"0+4\"; empty: unbound)")
          .section("clock_sync", &C::clock_sync, clock_sync_schema(),
                   "benchmarks on the global clock: how good it was (null otherwise)")
          .section("overlap_run", &C::overlap_run, overlap_run_settings_schema(),
                   "the run was under overlap-run, intercepting, with these settings (null "
                   "otherwise; files written before this field read as null)",
                   true)
          .section("placement", &C::placement, placement_schema(),
                   "where the ranks ran: each rank's CPUs and the Slurm job (files written "
                   "before this field read as null)",
                   true)
          .section("cost_model", &C::cost_model, cost_model_schema(),
                   "the parameters liboverlap's algorithm choice used (null without liboverlap "
                   "and in files written before this field)",
                   true)
          .section("progress_choice", &C::progress_choice, progress_choice_schema(),
                   "liboverlap's progress policy and why (null without liboverlap and in files "
                   "written before this field)",
                   true);
  return s;
}

}  // namespace overlap::bench
