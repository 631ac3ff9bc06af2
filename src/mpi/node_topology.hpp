// Which ranks share a node, and how many cores each node has for them: the union of
// the ranks' CPU affinity masks. Collective to build, plain data afterwards.
#pragma once

#include <mpi.h>

#include <vector>

namespace overlap::mpi {

struct NodeTopology {
  std::vector<int> node_of;  // node index of each rank (0..nodes-1, in order of first rank)
  std::vector<int> cores;    // CPUs available to the ranks of each node

  static NodeTopology detect(MPI_Comm comm);
};

}  // namespace overlap::mpi
