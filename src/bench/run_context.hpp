// Facts about the run that every result file carries: which MPI, where, how many ranks,
// with which clock and command line. Collected once (collectively), then plain data.
#pragma once

#include <mpi.h>

#include <string>
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
};

// Collective over comm; every rank gets the full context.
RunContext collect_run_context(MPI_Comm comm, const std::string& clock_source,
                               const std::string& command_line);

}  // namespace overlap::bench
