// Nonblocking collective algorithms, each expressed as a task graph for one rank. The
// builders see bytes and element counts only: datatypes, MPI_IN_PLACE and reduction
// kernels are resolved by the caller (c_api.cpp), so every algorithm is testable over
// the fake network in tests/progress/fake_network.hpp.
//
// Conventions shared by all builders:
//  - `Group{rank, size}` is this rank in a group of `size` ranks (ranks 0..size-1).
//  - A null send buffer means MPI_IN_PLACE, with MPI's meaning for that collective.
//  - Tags are small integers (< kTagsPerCollective) naming a step inside the collective.
//    Two messages between the same pair of ranks with the same tag must be posted in
//    the same order on both sides (MPI's non-overtaking rule then matches them).
//  - Algorithms are chosen from the message size and P (cost_model.hpp); the choice
//    depends only on arguments every rank agrees on, so all ranks build matching graphs.
//    Tests force one with the last argument.
#pragma once

#include <cstddef>
#include <optional>

#include "collectives/cost_model.hpp"
#include "progress/task_graph.hpp"

namespace overlap::collectives {

inline constexpr int kTagsPerCollective = 1024;

struct Group {
  int rank = 0;
  int size = 1;
};

// A reduction on elements of `elem_size` bytes (commutative: every predefined MPI op is,
// but with NaNs, signed zeros and MAXLOC ties on NaN the operand order still shows in the
// bits): `fn` computes inout = in (op) inout, `fn_reversed` inout = inout (op) in. Where
// two ranks compute the same value (recursive doubling) both put the lower rank's operand
// first, so every rank ends with the same bits.
struct ReduceKernel {
  progress::ReduceFn fn = nullptr;
  progress::ReduceFn fn_reversed = nullptr;
  std::size_t elem_size = 0;

  progress::ReduceOp forward() const { return {fn, elem_size}; }
  progress::ReduceOp reversed() const {
    return {fn_reversed != nullptr ? fn_reversed : fn, elem_size};
  }
  // inout = (lower rank's operand) op (higher rank's): `in` is the peer's data.
  progress::ReduceOp peer_first(bool peer_is_lower) const {
    return peer_is_lower ? forward() : reversed();
  }
};

using progress::TaskGraph;

void build_ibcast(TaskGraph& g, void* buf, std::size_t bytes, int root, Group grp,
                  std::optional<BcastAlgorithm> force = {});
// At the root, send == nullptr means the root's contribution is already in recv.
// recv is only used at the root.
void build_ireduce(TaskGraph& g, const void* send, void* recv, std::size_t count, ReduceKernel op,
                   int root, Group grp, std::optional<ReduceAlgorithm> force = {});
void build_iallreduce(TaskGraph& g, const void* send, void* recv, std::size_t count,
                      ReduceKernel op, Group grp, std::optional<AllreduceAlgorithm> force = {});
// recv holds size blocks of block_bytes; send == nullptr: own block already in place.
void build_iallgather(TaskGraph& g, const void* send, void* recv, std::size_t block_bytes,
                      Group grp, std::optional<AllgatherAlgorithm> force = {});
// send == nullptr: the blocks to send are in recv (MPI_IN_PLACE).
void build_ialltoall(TaskGraph& g, const void* send, void* recv, std::size_t block_bytes, Group grp,
                     std::optional<AlltoallAlgorithm> force = {});
// recv (root only) holds size blocks; at the root send == nullptr: own block in place.
void build_igather(TaskGraph& g, const void* send, void* recv, std::size_t block_bytes, int root,
                   Group grp, std::optional<RootedAlgorithm> force = {});
// send (root only) holds size blocks; at the root recv == nullptr: keep own block in send.
void build_iscatter(TaskGraph& g, const void* send, void* recv, std::size_t block_bytes, int root,
                    Group grp, std::optional<RootedAlgorithm> force = {});
// send holds size blocks of count elements; recv gets this rank's reduced block.
// send == nullptr: the input blocks are in recv (which then holds size * count elements).
void build_ireduce_scatter_block(TaskGraph& g, const void* send, void* recv, std::size_t count,
                                 ReduceKernel op, Group grp,
                                 std::optional<ReduceScatterAlgorithm> force = {});
void build_ibarrier(TaskGraph& g, Group grp);

}  // namespace overlap::collectives
