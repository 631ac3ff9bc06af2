#include "progress/auto_policy.hpp"

#include <dlfcn.h>
#include <mpi.h>

#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <string_view>

#include "progress/thread_placement.hpp"

namespace overlap::progress {
namespace {

// A positive integer, or 0.
int positive(const char* text) {
  if (text == nullptr) return 0;
  const std::string_view s(text);
  int v = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  return ec == std::errc{} && end == s.data() + s.size() && v > 0 ? v : 0;
}

// Slurm's SLURM_STEP_TASKS_PER_NODE ("2(x3),1": three nodes with 2, one with 1) at node
// `node`; 0 when malformed.
int slurm_tasks_on_node(std::string_view list, int node) {
  while (!list.empty()) {
    const std::size_t comma = list.find(',');
    std::string_view entry = list.substr(0, comma);
    list = comma == std::string_view::npos ? std::string_view{} : list.substr(comma + 1);
    int tasks = 0, repeat = 1;
    const char* end = entry.data() + entry.size();
    auto [p, ec] = std::from_chars(entry.data(), end, tasks);
    if (ec != std::errc{}) return 0;
    if (p != end) {
      if (end - p < 4 || p[0] != '(' || p[1] != 'x' || end[-1] != ')') return 0;
      auto [q, ec2] = std::from_chars(p + 2, end - 1, repeat);
      if (ec2 != std::errc{} || q != end - 1) return 0;
    }
    if (node < repeat) return tasks;
    node -= repeat;
  }
  return 0;
}

// The launcher's count of this job's ranks on this node: Open MPI, MPICH's Hydra, Slurm.
int local_ranks_from_launcher() {
  if (int n = positive(std::getenv("OMPI_COMM_WORLD_LOCAL_SIZE")); n > 0) return n;
  if (int n = positive(std::getenv("MPI_LOCALNRANKS")); n > 0) return n;
  const char* slurm = std::getenv("SLURM_STEP_TASKS_PER_NODE");
  const char* node = std::getenv("SLURM_NODEID");
  if (slurm != nullptr && node != nullptr) {
    if (int n = slurm_tasks_on_node(slurm, std::atoi(node)); n > 0) return n;
  }
  return 1;
}

bool mpich_async_progress() {
#if defined(MPICH)
  const char* a = std::getenv("MPICH_ASYNC_PROGRESS");
  const char* b = std::getenv("MPIR_CVAR_ASYNC_PROGRESS");
  return (a != nullptr && std::atoi(a) != 0) || (b != nullptr && std::atoi(b) != 0);
#else
  return false;
#endif
}

std::string plural(int n, const char* what) {
  return std::to_string(n) + " " + what + (n == 1 ? "" : "s");
}

}  // namespace

int cores_for_this_rank(const AutoInputs& in) {
  if (in.local_ranks <= 1) return in.cores;
  return std::min(in.cores, in.machine_cores / in.local_ranks);
}

bool set_is_shared(const AutoInputs& in) {
  return in.local_ranks > 1 && in.cores * in.local_ranks > in.machine_cores;
}

AutoChoice resolve_auto(const AutoInputs& in) {
  AutoChoice c;
  if (in.mpi_async_progress) {
    c.policy = ProgressPolicy::caller;
    c.reason = "MPICH's own progress thread is on (MPICH_ASYNC_PROGRESS): no second thread of ours";
    return c;
  }
  if (in.leave_core) {
    c.policy = ProgressPolicy::dedicated;
    c.reason = "a core was asked to be left to progress";
    return c;
  }
  const int mine = cores_for_this_rank(in);
  const std::string where = plural(in.cores, "core") + " in this rank's CPU set " + in.cpus;
  if (set_is_shared(in)) {
    // Ranks sharing a set would each put their dedicated thread on its last core: the
    // same one.
    c.policy = ProgressPolicy::shared;
    c.reason = where + ", shared with the node's other ranks (" + std::to_string(in.local_ranks) +
               " on " + plural(in.machine_cores, "core") +
               "): their dedicated threads would take the same core";
    return c;
  }
  const std::string uses =
      plural(in.threads, "computation thread") + " (" + in.threads_source + ")";
  if (mine >= in.threads + 1) {
    c.policy = ProgressPolicy::dedicated;
    c.reason = where + "; the program runs " + uses + ": a core is free for progress";
  } else {
    c.policy = ProgressPolicy::shared;
    c.reason = where + "; the program runs " + uses + ": no core to spare";
  }
  return c;
}

AutoInputs gather_auto_inputs(int threads, bool leave_core) {
  AutoInputs in;
  const ProcessCores pc = process_cores();
  in.cores = pc.cores > 0 ? pc.cores : 1;
  in.machine_cores = pc.machine_cores > 0 ? pc.machine_cores : in.cores;
  in.cpus = !pc.error.empty() ? "(unknown: " + pc.error + ")"
            : pc.cpus.empty() ? "(unknown)"
                              : pc.cpus;
  in.local_ranks = local_ranks_from_launcher();
  in.mpi_async_progress = mpich_async_progress();
  in.leave_core = leave_core;
  if (threads > 0) {
    in.threads = threads;
    in.threads_source = "as told";
  } else if (auto* omp = reinterpret_cast<int (*)()>(dlsym(RTLD_DEFAULT, "omp_get_max_threads"));
             omp != nullptr) {
    in.threads = omp() > 0 ? omp() : 1;
    in.threads_source = "OpenMP's omp_get_max_threads()";
  } else {
    in.threads = 1;
    in.threads_source = "no OpenMP in the process";
  }
  return in;
}

}  // namespace overlap::progress
