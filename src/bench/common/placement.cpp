#include "bench/common/placement.hpp"

#include "base/cpu_list.hpp"
#include "compute/thread_read_back.hpp"

namespace overlap::bench {

namespace {

// Every rank's `mine`, in rank order, on every rank.
std::vector<std::string> all_gather_text(MPI_Comm comm, const std::string& mine) {
  int size = 0;
  MPI_Comm_size(comm, &size);
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
  std::vector<std::string> out;
  for (int r = 0; r < size; ++r)
    out.push_back(all.substr(static_cast<std::size_t>(offsets[static_cast<std::size_t>(r)]),
                             static_cast<std::size_t>(lens[static_cast<std::size_t>(r)])));
  return out;
}

}  // namespace

const Schema<RankThreads>& rank_threads_schema() {
  using R = RankThreads;
  static const Schema<R> s =
      Schema<R>()
          .add("rank", &R::rank, Unit::none, "rank in MPI_COMM_WORLD")
          .add("computation", &R::computation, Unit::none,
               "per computation thread, bound as the benchmark binds it: its CPUs as the "
               "kernel lists them (/proc, Cpus_allowed_list)")
          .add("computation_hwloc", &R::computation_hwloc, Unit::none,
               "the same threads' CPUs as hwloc reads them")
          .add("progress", &R::progress, Unit::none,
               "liboverlap's thread (ovx-progress: shared's or dedicated's, MPICH caller's "
               "rescue thread; none under caller with Open MPI): its CPUs, /proc")
          .add("progress_hwloc", &R::progress_hwloc, Unit::none, "the same, hwloc");
  return s;
}

const Schema<ThreadsReadBack>& threads_read_back_schema() {
  using T = ThreadsReadBack;
  static const Schema<T> s =
      Schema<T>().section("ranks", &T::ranks, rank_threads_schema(), "per rank, rank order");
  return s;
}

ThreadsReadBack collect_threads_read_back(MPI_Comm comm,
                                          const std::vector<std::vector<int>>& thread_pus) {
  RankThreads mine;
  MPI_Comm_rank(comm, &mine.rank);
  for (const compute::CpusReadBack& c : compute::read_back_computation(thread_pus)) {
    mine.computation.push_back(c.proc);
    mine.computation_hwloc.push_back(c.hwloc);
  }
  for (const compute::CpusReadBack& c :
       compute::read_back_cpus(compute::threads_named("ovx-progress"))) {
    mine.progress.push_back(c.proc);
    mine.progress_hwloc.push_back(c.hwloc);
  }
  ThreadsReadBack all;
  for (const std::string& text :
       all_gather_text(comm, rank_threads_schema().to_json(mine).dump())) {
    all.ranks.push_back(rank_threads_schema().from_json(nlohmann::json::parse(text)));
  }
  return all;
}

const Schema<Placement>& placement_schema() {
  using P = Placement;
  static const Schema<P> s =
      Schema<P>()
          .add("cpus", &P::cpus, Unit::none,
               "per rank, rank order: the CPUs its affinity mask allowed at the start (the "
               "launcher's or Slurm's binding, a cgroup CPU set), e.g. \"0-3\" or \"2\"")
          .section("slurm", &P::slurm, slurm_job_schema(),
                   "the Slurm job the ranks ran in (null: not under Slurm)", true)
          .section("threads", &P::threads, threads_read_back_schema(),
                   "where each rank's computation threads and liboverlap's progress thread "
                   "really run, read back from /proc and hwloc after liboverlap started (null "
                   "in files written before this field)",
                   true);
  return s;
}

Placement collect_placement(MPI_Comm comm) {
  Placement p;
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  p.cpus = all_gather_text(comm, affinity_cpu_list());
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
