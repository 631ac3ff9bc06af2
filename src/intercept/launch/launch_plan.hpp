// How overlap-run starts a program under interception, decided from its command line
// alone (pure: tested). Two forms:
//  - per rank: `mpiexec -n 4 overlap-run [options] -- ./app args`: overlap-run sets the
//    preload and the OVERLAP_* variables in its own environment and becomes ./app (exec).
//  - launcher: `overlap-run [options] -- mpiexec -n 4 ./app args`: the command starts with
//    a launcher; overlap-run adds what makes it give the ranks the preload and the
//    settings (Open MPI: -x NAME=VALUE; MPICH's hydra: -genv NAME VALUE; srun: the
//    environment, which it forwards by default) and leaves the launcher itself without
//    the preload.
#pragma once

#include <map>
#include <string>
#include <vector>

namespace overlap::intercept {

enum class LauncherKind { none, open_mpi, hydra, srun };

// From the command's first word (basename): mpirun/mpiexec(.openmpi)/orterun/prterun are
// Open MPI's, mpiexec.hydra/mpirun.mpich/mpiexec.mpich hydra's, srun Slurm's. A bare
// `mpiexec`/`mpirun` is the MPI overlap-run was built for (`built_for`: openmpi|mpich).
LauncherKind launcher_kind(const std::string& command, const std::string& built_for);

struct LaunchPlan {
  std::vector<std::string> argv;               // what to exec
  std::map<std::string, std::string> set_env;  // set in overlap-run's own environment
};

// `env`: the variables the ranks need (LD_PRELOAD included, already merged with any
// LD_PRELOAD the user had).
LaunchPlan plan_launch(const std::vector<std::string>& command, LauncherKind kind,
                       const std::map<std::string, std::string>& env);

// LD_PRELOAD for the ranks: the user's preloads first (an ASan runtime must stay first),
// ours last, no duplicate.
std::string merged_preload(const std::string& existing, const std::string& ours);

}  // namespace overlap::intercept
