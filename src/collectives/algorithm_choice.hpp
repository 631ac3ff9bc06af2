// Which algorithm each collective runs: the cost model's choice (cost_model.hpp), or one
// forced for every call through OVERLAP_ALGORITHMS, e.g. "allreduce=ring,bcast=binomial",
// as MPI libraries let their users force theirs (Open MPI's coll_tuned_*_algorithm,
// MPICH's MPIR_CVAR_*_ALGORITHM). A forced algorithm applies where it is defined (a ring
// allreduce needs at least P elements, Rabenseifner's the largest power of two not above
// P, a reduce-scatter + gather reduce P); elsewhere the model chooses. Like every
// argument of a collective, the setting must be the same on every rank.
// Pure functions but forced_algorithms(), which reads the environment once.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include "collectives/cost_model.hpp"

namespace overlap::collectives {

struct ForcedAlgorithms {
  std::optional<AllreduceAlgorithm> allreduce;
  std::optional<BcastAlgorithm> bcast;
  std::optional<ReduceAlgorithm> reduce;
  std::optional<AllgatherAlgorithm> allgather;
  std::optional<ReduceScatterAlgorithm> reduce_scatter_block;
  std::optional<RootedAlgorithm> gather;
  std::optional<RootedAlgorithm> scatter;
  std::optional<AlltoallAlgorithm> alltoall;
};

struct ForcedParse {
  ForcedAlgorithms forced;
  std::string error;  // names the bad entry and what is allowed
};
ForcedParse parse_forced_algorithms(std::string_view text);
// OVERLAP_ALGORITHMS, parsed once.
const ForcedParse& forced_algorithms();

// What a call chooses with: the forced algorithms and the model's latency in bytes (the
// agreed parameters of cost_params.hpp; the defaults on a communicator reaching outside
// MPI_COMM_WORLD, whose other ranks calibrated elsewhere).
struct Choice {
  ForcedAlgorithms forced;
  double latency_bytes = kLatencyBytes;
};

// What the builders run: the forced algorithm where it is defined, else the model's.
// `bytes` and `count` as the cost model's choose_* take them.
AllreduceAlgorithm allreduce_algorithm(std::size_t bytes, std::size_t count, int p,
                                       const Choice& c);
BcastAlgorithm bcast_algorithm(std::size_t bytes, int p, const Choice& c);
ReduceAlgorithm reduce_algorithm(std::size_t bytes, std::size_t count, int p, const Choice& c);
AllgatherAlgorithm allgather_algorithm(std::size_t block, int p, const Choice& c);
ReduceScatterAlgorithm reduce_scatter_block_algorithm(std::size_t block, int p, const Choice& c);
RootedAlgorithm gather_algorithm(std::size_t block, int p, const Choice& c);
RootedAlgorithm scatter_algorithm(std::size_t block, int p, const Choice& c);
AlltoallAlgorithm alltoall_algorithm(std::size_t block, int p, const Choice& c);

// The name of what collective `op` ("bcast", "allreduce", ...) runs for a message of
// `bytes` (one rank's block for the "all" and rooted ones; the vector for reductions) of
// `count` elements on `p` ranks: "ring", "binomial", ...; "local" on one rank, "none"
// without data; nullptr for an unknown op.
const char* algorithm_name(std::string_view op, std::size_t bytes, std::size_t count, int p,
                           const Choice& c);

}  // namespace overlap::collectives
