// Facts about the run that every result file carries as its `metadata`: which MPI, where,
// how many ranks, with which clock, command line, threads and cores. Collected once
// (collectively), then plain data, with the schema that names its fields.
#pragma once

#include <mpi.h>

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "base/record_schema.hpp"
#include "bench/common/global_clock.hpp"
#include "bench/common/overlap_run_probe.hpp"
#include "bench/common/placement.hpp"

namespace overlap::bench {

// liboverlap's cost model as the run used it (OVX_Get_cost_model after OVX_Calibrate).
struct CostModelFacts {
  double latency_s = 0;
  double bandwidth = 0;  // bytes per second
  std::string source;    // measured, OVERLAP_COST_MODEL or default
};

// liboverlap's progress policy as the run used it, and why (--progress auto: what it saw).
struct ProgressChoice {
  std::string policy;  // caller, shared or dedicated (OVX_Get_progress, after fallbacks)
  std::string reason;  // rank 0's
};

struct RunContext {
  std::string mpi_library;         // MPI_Get_library_version, first line
  std::string mpi_flavor;          // "openmpi", "mpich" or "other"
  std::string mpi_standard;        // "3.1"
  int size = 0;                    // P
  std::vector<std::string> hosts;  // per rank, MPI_Get_processor_name
  std::string clock_source;
  std::string command_line;
  std::string started_at;                          // ISO 8601 UTC
  std::string label;                               // how reports name this run
  std::map<std::string, std::string> environment;  // MPI-related variables
  std::string thread_level;                        // as provided by MPI
  int threads = 0;                                 // computation threads per rank (0: none)
  int dedicated_cores = 0;
  std::vector<std::string> thread_pus;  // rank 0: the PUs each computation thread is bound to
  std::optional<ClockSyncQuality> clock_sync;     // benchmarks on the global clock
  std::optional<OverlapRunSettings> overlap_run;  // under overlap-run (intercepting)
  std::optional<Placement> placement;             // always set by collect_run_context
  std::optional<CostModelFacts> cost_model;       // runs that use liboverlap
  std::optional<ProgressChoice> progress_choice;  // runs that use liboverlap
};
const Schema<RunContext>& run_context_schema();
const Schema<CostModelFacts>& cost_model_schema();
const Schema<ProgressChoice>& progress_choice_schema();
const Schema<ClockSyncQuality>& clock_sync_schema();

// The variables that change how an MPI library progresses or binds (MPICH_*, MPIR_CVAR_*,
// OMPI_MCA_*, UCX_*, OMP_*, ...). Launcher bookkeeping variables are left out.
std::map<std::string, std::string> mpi_environment();
// "mpich", "mpich async-progress", ...: the flavor plus settings a reader must not miss.
std::string default_label(const std::string& flavor,
                          const std::map<std::string, std::string>& environment);
std::string thread_level_name(int level);

// Collective over comm; every rank gets the full context (environment included; label,
// thread level and threads are the caller's to set).
RunContext collect_run_context(MPI_Comm comm, const std::string& clock_source,
                               const std::string& command_line);

}  // namespace overlap::bench
