#include "intercept/launch/launch_plan.hpp"

namespace overlap::intercept {

namespace {
std::string base_name(const std::string& path) {
  const auto slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}
}  // namespace

LauncherKind launcher_kind(const std::string& command, const std::string& built_for) {
  const std::string name = base_name(command);
  if (name == "srun") return LauncherKind::srun;
  if (name == "mpirun.openmpi" || name == "mpiexec.openmpi" || name == "orterun" ||
      name == "prterun") {
    return LauncherKind::open_mpi;
  }
  if (name == "mpiexec.hydra" || name == "mpirun.mpich" || name == "mpiexec.mpich" ||
      name == "hydra") {
    return LauncherKind::hydra;
  }
  if (name == "mpiexec" || name == "mpirun") {
    return built_for == "mpich" ? LauncherKind::hydra : LauncherKind::open_mpi;
  }
  return LauncherKind::none;
}

LaunchPlan plan_launch(const std::vector<std::string>& command, LauncherKind kind,
                       const std::map<std::string, std::string>& env) {
  LaunchPlan plan;
  if (command.empty()) return plan;
  switch (kind) {
    case LauncherKind::none:
    case LauncherKind::srun:
      // srun forwards its environment to the tasks (--export=ALL is its default).
      plan.argv = command;
      plan.set_env = env;
      return plan;
    case LauncherKind::open_mpi:
      plan.argv.push_back(command[0]);
      for (const auto& [name, value] : env) {
        plan.argv.push_back("-x");
        plan.argv.push_back(name + "=" + value);
      }
      break;
    case LauncherKind::hydra:
      plan.argv.push_back(command[0]);
      for (const auto& [name, value] : env) {
        plan.argv.push_back("-genv");
        plan.argv.push_back(name);
        plan.argv.push_back(value);
      }
      break;
  }
  plan.argv.insert(plan.argv.end(), command.begin() + 1, command.end());
  return plan;
}

std::string merged_preload(const std::string& existing, const std::string& ours) {
  std::vector<std::string> items;
  std::string item;
  // LD_PRELOAD separates with spaces or colons.
  for (char c : existing) {
    if (c == ':' || c == ' ') {
      if (!item.empty() && item != ours) items.push_back(item);
      item.clear();
    } else {
      item += c;
    }
  }
  if (!item.empty() && item != ours) items.push_back(item);
  items.push_back(ours);
  std::string out;
  for (const std::string& s : items) {
    if (!out.empty()) out += ':';
    out += s;
  }
  return out;
}

}  // namespace overlap::intercept
