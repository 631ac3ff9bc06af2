#include "bench/run_context.hpp"

#include <array>
#include <chrono>
#include <ctime>

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

}  // namespace overlap::bench
