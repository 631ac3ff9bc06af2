// The `auto` progress policy (issue 26): `dedicated` where this rank's own CPU set (not
// shared with the node's other ranks) has a core its program's threads leave free (or the
// user asked to leave one), else `shared`; `caller`
// where the MPI library runs its own progress thread already (MPICH with
// MPICH_ASYNC_PROGRESS=1: no second thread). The rule is pure (resolve_auto, unit-tested
// over made-up machines); gather_auto_inputs reads this process's CPU set (hwloc), the
// launcher's count of ranks on this node, OpenMP's team size and the environment.
#pragma once

#include <string>

#include "progress/progress_policy.hpp"

namespace overlap::progress {

struct AutoInputs {
  int cores = 1;               // whole cores in the process's CPU set
  int machine_cores = 1;       // cores the machine lets this process see
  std::string cpus;            // the CPU set, for the reason ("0-3")
  int local_ranks = 1;         // ranks of the job on this node (1 when not known)
  int threads = 1;             // the program's computation threads
  std::string threads_source;  // where `threads` comes from ("OpenMP", "--threads", ...)
  bool mpi_async_progress = false;
  bool leave_core = false;  // the user asked for a core to be left to progress
};

struct AutoChoice {
  ProgressPolicy policy = ProgressPolicy::shared;
  std::string reason;  // one line with the numbers it was decided on
};

// The cores this rank may count on: its CPU set, at most its share of the node.
int cores_for_this_rank(const AutoInputs& in);
// The set is larger than the rank's share of the node, so other ranks' sets overlap it
// (unbound ranks, or ranks bound to a socket together): `dedicated` would put every one
// of their progress threads on the set's last core, so `auto` takes `shared` there.
bool set_is_shared(const AutoInputs& in);
AutoChoice resolve_auto(const AutoInputs& in);

// `threads` > 0: the program's computation threads as its caller knows them (overlap-bench
// --threads); 0: unknown, OpenMP's omp_get_max_threads() when OpenMP is loaded in the
// process, else 1 (the main thread).
AutoInputs gather_auto_inputs(int threads, bool leave_core);

}  // namespace overlap::progress
