#include "bench/common/placement.hpp"

#include "base/cpu_list.hpp"

namespace overlap::bench {

const Schema<Placement>& placement_schema() {
  using P = Placement;
  static const Schema<P> s =
      Schema<P>()
          .add("cpus", &P::cpus, Unit::none,
               "per rank, rank order: the CPUs its affinity mask allowed at the start (the "
               "launcher's or Slurm's binding, a cgroup CPU set), e.g. \"0-3\" or \"2\"")
          .section("slurm", &P::slurm, slurm_job_schema(),
                   "the Slurm job the ranks ran in (null: not under Slurm)", true);
  return s;
}

Placement collect_placement(MPI_Comm comm) {
  Placement p;
  int size = 0, rank = 0;
  MPI_Comm_size(comm, &size);
  MPI_Comm_rank(comm, &rank);
  const std::string mine = affinity_cpu_list();
  int len = static_cast<int>(mine.size());
  std::vector<int> lens(static_cast<std::size_t>(size)), offsets(static_cast<std::size_t>(size));
  MPI_Allgather(&len, 1, MPI_INT, lens.data(), 1, MPI_INT, comm);
  int total = 0;
  for (int r = 0; r < size; ++r) {
    offsets[static_cast<std::size_t>(r)] = total;
    total += lens[static_cast<std::size_t>(r)];
  }
  std::string all(static_cast<std::size_t>(total), '\0');
  MPI_Allgatherv(mine.data(), len, MPI_CHAR, all.data(), lens.data(), offsets.data(), MPI_CHAR,
                 comm);
  for (int r = 0; r < size; ++r)
    p.cpus.push_back(all.substr(static_cast<std::size_t>(offsets[static_cast<std::size_t>(r)]),
                                static_cast<std::size_t>(lens[static_cast<std::size_t>(r)])));
  // Rank 0's view: every rank records the same.
  const std::optional<SlurmJob> own = rank == 0 ? slurm_job() : std::nullopt;
  std::string job = own ? slurm_job_schema().to_json(*own).dump() : "";
  int job_len = static_cast<int>(job.size());
  MPI_Bcast(&job_len, 1, MPI_INT, 0, comm);
  job.resize(static_cast<std::size_t>(job_len));
  MPI_Bcast(job.data(), job_len, MPI_CHAR, 0, comm);
  if (!job.empty()) p.slurm = slurm_job_schema().from_json(nlohmann::json::parse(job));
  return p;
}

}  // namespace overlap::bench
