// The collectives the benchmarks measure, with buffers sized for one message size and the
// calls that run one. Message size (`msg_bytes`) means, per rank: the broadcast/reduced
// vector for bcast, reduce, allreduce; the block each rank contributes or receives for
// allgather, alltoall, gather, scatter and reduce_scatter_block (as in OSU and IMB).
// Reductions use MPI_DOUBLE + MPI_SUM, the rest MPI_BYTE. The root is rank 0. barrier has
// no size. One enum, two vocabularies: `nbc` names them ibcast, ..., `coll` bcast, ....
// `halo` is not a collective but the point-to-point pattern of a stencil code, measured by
// the same sweeps: each rank exchanges a message with each of its two neighbours on a ring
// (MPI_Irecv x 2, MPI_Isend x 2, MPI_Waitall); liboverlap's form is the same calls with its
// engine driving MPI from OVX_Progress_begin to OVX_Progress_end, as overlap-run does for a
// program's own requests. "all" in an --op list means the collectives, not halo.
#pragma once

#include <mpi.h>

#include <string>
#include <vector>

#include "base/enum_names.hpp"
#include "bench/common/implementation.hpp"
#include "bench/common/operation.hpp"

namespace overlap::bench {

enum class Collective {
  bcast,
  reduce,
  allreduce,
  allgather,
  alltoall,
  gather,
  scatter,
  reduce_scatter_block,
  barrier,
  halo,
};

using CollectiveNames = EnumNames<Collective, 10>;

inline constexpr CollectiveNames kNonblockingNames{
    "nonblocking collective",
    {{{Collective::bcast, "ibcast"},
      {Collective::reduce, "ireduce"},
      {Collective::allreduce, "iallreduce"},
      {Collective::allgather, "iallgather"},
      {Collective::alltoall, "ialltoall"},
      {Collective::gather, "igather"},
      {Collective::scatter, "iscatter"},
      {Collective::reduce_scatter_block, "ireduce_scatter_block"},
      {Collective::barrier, "ibarrier"},
      {Collective::halo, "ihalo"}}}};

inline constexpr CollectiveNames kBlockingNames{
    "collective",
    {{{Collective::bcast, "bcast"},
      {Collective::reduce, "reduce"},
      {Collective::allreduce, "allreduce"},
      {Collective::allgather, "allgather"},
      {Collective::alltoall, "alltoall"},
      {Collective::gather, "gather"},
      {Collective::scatter, "scatter"},
      {Collective::reduce_scatter_block, "reduce_scatter_block"},
      {Collective::barrier, "barrier"},
      {Collective::halo, "halo"}}}};

// Bytes per element: 8 (MPI_DOUBLE) for the reductions, 1 (MPI_BYTE) for the rest.
int element_bytes(Collective op);

// The algorithm liboverlap runs `op` with for `msg_bytes` per rank on `size` ranks
// (OVX_Algorithm); empty for MPI's own, whose choice nobody reports, and for halo.
std::string liboverlap_algorithm(Collective op, Implementation impl, long msg_bytes, int size);

// One collective on its own buffers, run by one implementation.
class CollectiveCall : public Operation {
 public:
  CollectiveCall(Collective op, Implementation impl, MPI_Comm comm);

  Collective op() const { return op_; }
  Implementation impl() const { return impl_; }
  bool has_size() const override { return op_ != Collective::barrier; }
  int element_bytes() const override;
  long max_elements(double max_bytes) const override;
  void resize(long elements) override;
  long elements() const override { return elements_; }
  long msg_bytes() const { return elements_ * element_bytes(); }

  // MPI_I<op> or OVX_I<op> with the same arguments (halo: its four calls, liboverlap's
  // engine driving MPI from here to wait()).
  void start() override;
  bool test() override;
  void wait() override;
  // The blocking form: MPI_<op> for mpi, OVX_I<op> + MPI_Wait for overlap (liboverlap has
  // no blocking collectives: this is what an application using it would call); halo: its
  // four calls and MPI_Waitall. MPI's
  // returns once this rank's result was read (observe_result).
  void run_blocking();

 private:
  void observe_result() const;
  void start_halo();
  Collective op_;
  Implementation impl_;
  MPI_Comm comm_;
  int size_ = 1;
  int rank_ = 0;
  long elements_ = 0;
  mutable unsigned char observed_ = 0;
  std::vector<unsigned char> send_;
  std::vector<unsigned char> recv_;
  MPI_Request request_ = MPI_REQUEST_NULL;
  MPI_Request halo_[4] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL, MPI_REQUEST_NULL, MPI_REQUEST_NULL};
  bool progressing_ = false;  // halo, liboverlap: OVX_Progress_begin called, _end not yet
};

// Gives every call its buffers for `elements` per message; returns why this rank cannot
// (less than one element, more than MPI's int counts, no memory), or "". `names` names the
// collective in the message.
std::string prepare_buffers(std::vector<CollectiveCall>& calls, long elements,
                            const CollectiveNames& names, int rank);

// A collective's blocking form as an Operation: start() runs it to completion (MPI_<op>,
// or OVX_I<op> + MPI_Wait for liboverlap), wait() has nothing left to do.
class BlockingCall : public Operation {
 public:
  explicit BlockingCall(CollectiveCall& call) : call_(call) {}
  bool has_size() const override { return call_.has_size(); }
  int element_bytes() const override { return call_.element_bytes(); }
  long max_elements(double max_bytes) const override { return call_.max_elements(max_bytes); }
  void resize(long elements) override { call_.resize(elements); }
  long elements() const override { return call_.elements(); }
  void start() override { call_.run_blocking(); }
  bool test() override { return true; }
  void wait() override {}

 private:
  CollectiveCall& call_;
};

}  // namespace overlap::bench
