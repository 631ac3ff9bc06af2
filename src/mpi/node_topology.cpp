#include "mpi/node_topology.hpp"

#include <sched.h>

#include <array>
#include <cstdint>

namespace overlap::mpi {

NodeTopology NodeTopology::detect(MPI_Comm comm) {
  int rank = 0;
  int size = 0;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);

  // Node identity: lowest world rank of the shared-memory communicator we belong to.
  MPI_Comm node_comm = MPI_COMM_NULL;
  MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node_comm);
  int leader = rank;
  MPI_Allreduce(MPI_IN_PLACE, &leader, 1, MPI_INT, MPI_MIN, node_comm);
  MPI_Comm_free(&node_comm);

  constexpr int kWords = CPU_SETSIZE / 64;
  std::array<std::uint64_t, kWords> mask{};
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof(set), &set) == 0) {
    for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu) {
      if (CPU_ISSET(cpu, &set))
        mask[static_cast<std::size_t>(cpu / 64)] |= std::uint64_t{1} << (cpu % 64);
    }
  } else {
    mask[0] = 1;
  }

  std::vector<int> leaders(static_cast<std::size_t>(size));
  MPI_Allgather(&leader, 1, MPI_INT, leaders.data(), 1, MPI_INT, comm);
  std::vector<std::uint64_t> masks(static_cast<std::size_t>(size) * kWords);
  MPI_Allgather(mask.data(), kWords, MPI_UINT64_T, masks.data(), kWords, MPI_UINT64_T, comm);

  NodeTopology topo;
  std::vector<int> node_of_leader(static_cast<std::size_t>(size), -1);
  std::vector<std::array<std::uint64_t, kWords>> unions;
  for (int r = 0; r < size; ++r) {
    int& node = node_of_leader[static_cast<std::size_t>(leaders[static_cast<std::size_t>(r)])];
    if (node < 0) {
      node = static_cast<int>(unions.size());
      unions.push_back({});
    }
    topo.node_of.push_back(node);
    for (int w = 0; w < kWords; ++w) {
      unions[static_cast<std::size_t>(node)][static_cast<std::size_t>(w)] |=
          masks[static_cast<std::size_t>(r) * kWords + static_cast<std::size_t>(w)];
    }
  }
  for (const auto& u : unions) {
    int count = 0;
    for (std::uint64_t word : u) count += __builtin_popcountll(word);
    topo.cores.push_back(count > 0 ? count : 1);
  }
  return topo;
}

}  // namespace overlap::mpi
