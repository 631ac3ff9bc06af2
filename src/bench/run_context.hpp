// Facts about the run that every result file carries: which MPI, where, how many ranks,
// with which clock and command line. Collected once (collectively), then plain data.
#pragma once

#include <mpi.h>

#include <string>
#include <utility>
#include <vector>

namespace overlap::bench {

struct RunContext {
  std::string mpi_library;  // MPI_Get_library_version, first line
  std::string mpi_flavor;   // "openmpi", "mpich" or "other"
  int mpi_version = 0;      // MPI standard version.subversion as 10*v + s
  int mpi_subversion = 0;
  int size = 0;                    // P
  std::vector<std::string> hosts;  // per rank, MPI_Get_processor_name
  std::string clock_source;
  std::string command_line;
  std::string started_at;  // ISO 8601 UTC
  // Set by benchmarks that compute (nbc, impact); empty/0 otherwise.
  std::string label;                                             // how reports name this run
  std::vector<std::pair<std::string, std::string>> environment;  // MPI-related variables
  std::string thread_level;                                      // as provided by MPI
  int threads = 0;                                               // computation threads per rank
  int dedicated_cores = 0;
};

// The variables that change how an MPI library progresses or binds (MPICH_*, MPIR_CVAR_*,
// OMPI_MCA_*, UCX_*, OMP_*, ...), sorted. Launcher bookkeeping variables are left out.
std::vector<std::pair<std::string, std::string>> mpi_environment();
// "mpich", "mpich async-progress", ...: the flavor plus settings a reader must not miss.
std::string default_label(const std::string& flavor,
                          const std::vector<std::pair<std::string, std::string>>& environment);
std::string thread_level_name(int level);

// Collective over comm; every rank gets the full context.
RunContext collect_run_context(MPI_Comm comm, const std::string& clock_source,
                               const std::string& command_line);

}  // namespace overlap::bench
