#include "bench/run_context.hpp"

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
  MPI_Get_version(&ctx.mpi_version, &ctx.mpi_subversion);
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
  return ctx;
}

std::vector<std::pair<std::string, std::string>> mpi_environment() {
  static constexpr std::string_view kPrefixes[] = {"MPICH_",    "MPIR_CVAR_", "MPIR_", "OMPI_MCA_",
                                                   "UCX_",      "OMP_",       "PSM2_", "FI_",
                                                   "OPENBLAS_", "HYDRA_"};
  // Set by the launchers for every run; they say nothing about configuration.
  static constexpr std::string_view kBookkeeping[] = {
      "OMPI_MCA_orte_",        "OMPI_MCA_ess_",
      "OMPI_MCA_pmix",         "OMPI_MCA_mpi_oversubscribe",
      "OMPI_MCA_initial_wdir", "OMPI_MCA_shmem_RUNTIME_QUERY_hint"};
  std::vector<std::pair<std::string, std::string>> vars;
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) {
    const std::string_view entry(*e);
    const auto eq = entry.find('=');
    if (eq == std::string_view::npos) continue;
    const std::string_view name = entry.substr(0, eq);
    const auto starts = [&](std::string_view p) { return name.starts_with(p); };
    if (std::none_of(std::begin(kPrefixes), std::end(kPrefixes), starts)) continue;
    if (std::any_of(std::begin(kBookkeeping), std::end(kBookkeeping), starts)) continue;
    vars.emplace_back(std::string(name), std::string(entry.substr(eq + 1)));
  }
  std::sort(vars.begin(), vars.end());
  return vars;
}

std::string default_label(const std::string& flavor,
                          const std::vector<std::pair<std::string, std::string>>& environment) {
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

}  // namespace overlap::bench
