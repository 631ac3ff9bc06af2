// The nonblocking collectives `overlap-bench nbc` measures, with buffers sized for one
// message size and a call that starts one. Message size (`msg_bytes`) means, per rank:
// the broadcast/reduced vector for ibcast, ireduce, iallreduce; the block each rank
// contributes or receives for iallgather, ialltoall, igather, iscatter and
// ireduce_scatter_block (as in OSU and IMB). Reductions use MPI_DOUBLE + MPI_SUM, the rest
// MPI_BYTE. The root is rank 0. ibarrier has no size. `impl` says whose collective runs:
// the MPI library's (MPI_I*) or liboverlap's (OVX_I*, same arguments).
#pragma once

#include <mpi.h>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace overlap::bench {

enum class NbcOp {
  ibcast,
  ireduce,
  iallreduce,
  iallgather,
  ialltoall,
  igather,
  iscatter,
  ireduce_scatter_block,
  ibarrier,
};

enum class NbcImpl { mpi, overlap };

std::string_view to_string(NbcImpl impl);
std::optional<NbcImpl> parse_nbc_impl(std::string_view name);

std::string_view to_string(NbcOp op);
std::optional<NbcOp> parse_nbc_op(std::string_view name);
const std::vector<NbcOp>& all_nbc_ops();
std::string all_nbc_op_names();  // "ibcast, ireduce, ..." for messages
// Bytes per element: 8 (MPI_DOUBLE) for the reductions, 1 (MPI_BYTE) for the rest.
int element_bytes(NbcOp op);

class NbcOperation {
 public:
  NbcOperation(NbcOp op, NbcImpl impl, MPI_Comm comm);

  NbcOp op() const { return op_; }
  NbcImpl impl() const { return impl_; }
  bool has_size() const { return op_ != NbcOp::ibarrier; }
  int element_bytes() const;
  // Largest element count whose buffers (send + receive on this rank) fit in `max_bytes`
  // and whose counts fit MPI's int.
  long max_elements(double max_bytes) const;

  // Allocates (and touches) buffers for `elements` elements per message.
  void resize(long elements);
  long elements() const { return elements_; }
  long msg_bytes() const { return elements_ * element_bytes(); }

  // Starts the collective; the caller waits.
  MPI_Request start();

 private:
  NbcOp op_;
  NbcImpl impl_;
  MPI_Comm comm_;
  int size_ = 1;
  long elements_ = 0;
  std::vector<unsigned char> send_;
  std::vector<unsigned char> recv_;
};

}  // namespace overlap::bench
