#include "base/slurm_job.hpp"

#include <cstdlib>

namespace overlap {
namespace {

int number(const std::optional<std::string>& text) {
  if (!text || text->empty()) return 0;
  char* end = nullptr;
  const long v = std::strtol(text->c_str(), &end, 10);
  return end != nullptr && *end == '\0' && v > 0 && v < 1 << 30 ? static_cast<int>(v) : 0;
}

}  // namespace

const Schema<SlurmJob>& slurm_job_schema() {
  using J = SlurmJob;
  static const Schema<J> s =
      Schema<J>()
          .add("job_id", &J::job_id, Unit::none, "SLURM_JOB_ID")
          .add("step_id", &J::step_id, Unit::none,
               "SLURM_STEP_ID: the srun step the ranks are (empty: launched otherwise, e.g. "
               "mpirun inside the allocation)")
          .add("node_list", &J::node_list, Unit::none, "SLURM_JOB_NODELIST, e.g. n[01-04]")
          .add("nodes", &J::nodes, Unit::count, "SLURM_JOB_NUM_NODES")
          .add("tasks", &J::tasks, Unit::count, "SLURM_NTASKS (0: not given)")
          .add("tasks_per_node", &J::tasks_per_node, Unit::none,
               "SLURM_NTASKS_PER_NODE, else SLURM_TASKS_PER_NODE, e.g. 2(x4)")
          .add("cpus_per_task", &J::cpus_per_task, Unit::count,
               "SLURM_CPUS_PER_TASK (0: not given)")
          .add("cpu_bind", &J::cpu_bind, Unit::none,
               "SLURM_CPU_BIND as srun set it (empty: no binding asked of Slurm)")
          .add("partition", &J::partition, Unit::none, "SLURM_JOB_PARTITION");
  return s;
}

std::optional<SlurmJob> slurm_job_from(
    const std::function<std::optional<std::string>(const char*)>& get) {
  const auto id = get("SLURM_JOB_ID");
  if (!id || id->empty()) return std::nullopt;
  SlurmJob j;
  j.job_id = *id;
  j.step_id = get("SLURM_STEP_ID").value_or("");
  j.node_list = get("SLURM_JOB_NODELIST").value_or("");
  j.nodes = number(get("SLURM_JOB_NUM_NODES"));
  j.tasks = number(get("SLURM_NTASKS"));
  j.tasks_per_node =
      get("SLURM_NTASKS_PER_NODE").value_or(get("SLURM_TASKS_PER_NODE").value_or(""));
  j.cpus_per_task = number(get("SLURM_CPUS_PER_TASK"));
  j.cpu_bind = get("SLURM_CPU_BIND").value_or("");
  j.partition = get("SLURM_JOB_PARTITION").value_or("");
  return j;
}

std::optional<SlurmJob> slurm_job() {
  return slurm_job_from([](const char* name) -> std::optional<std::string> {
    const char* v = std::getenv(name);
    if (v == nullptr) return std::nullopt;
    return std::string(v);
  });
}

}  // namespace overlap
