#include "bench/nbc_op.hpp"

#include <climits>
#include <stdexcept>
#include <utility>

#include "overlap/overlap.h"

namespace overlap::bench {
namespace {

constexpr std::pair<NbcOp, std::string_view> kNames[] = {
    {NbcOp::ibcast, "ibcast"},         {NbcOp::ireduce, "ireduce"},
    {NbcOp::iallreduce, "iallreduce"}, {NbcOp::iallgather, "iallgather"},
    {NbcOp::ialltoall, "ialltoall"},   {NbcOp::igather, "igather"},
    {NbcOp::iscatter, "iscatter"},     {NbcOp::ireduce_scatter_block, "ireduce_scatter_block"},
    {NbcOp::ibarrier, "ibarrier"},
};

bool is_reduction(NbcOp op) {
  return op == NbcOp::ireduce || op == NbcOp::iallreduce || op == NbcOp::ireduce_scatter_block;
}

// Buffer lengths in messages (elements x this) for send and receive.
std::pair<long, long> buffer_factors(NbcOp op, int p) {
  switch (op) {
    case NbcOp::ibcast:
      return {1, 0};
    case NbcOp::ireduce:
    case NbcOp::iallreduce:
      return {1, 1};
    case NbcOp::iallgather:
    case NbcOp::igather:
      return {1, p};
    case NbcOp::ialltoall:
      return {p, p};
    case NbcOp::iscatter:
    case NbcOp::ireduce_scatter_block:
      return {p, 1};
    case NbcOp::ibarrier:
      return {0, 0};
  }
  return {0, 0};
}

int to_int(long count) {
  if (count > INT_MAX) throw std::length_error("message count exceeds MPI's int");
  return static_cast<int>(count);
}

}  // namespace

std::string_view to_string(NbcImpl impl) { return impl == NbcImpl::mpi ? "mpi" : "overlap"; }

std::optional<NbcImpl> parse_nbc_impl(std::string_view name) {
  if (name == "mpi") return NbcImpl::mpi;
  if (name == "overlap") return NbcImpl::overlap;
  return std::nullopt;
}

std::string_view to_string(NbcOp op) {
  for (const auto& [o, name] : kNames) {
    if (o == op) return name;
  }
  return "?";
}

std::optional<NbcOp> parse_nbc_op(std::string_view name) {
  for (const auto& [o, n] : kNames) {
    if (n == name) return o;
  }
  return std::nullopt;
}

const std::vector<NbcOp>& all_nbc_ops() {
  static const std::vector<NbcOp> ops = [] {
    std::vector<NbcOp> v;
    for (const auto& entry : kNames) v.push_back(entry.first);
    return v;
  }();
  return ops;
}

std::string all_nbc_op_names() {
  std::string names;
  for (const auto& [o, n] : kNames) names += (names.empty() ? "" : ", ") + std::string(n);
  return names;
}

NbcOperation::NbcOperation(NbcOp op, NbcImpl impl, MPI_Comm comm)
    : op_(op), impl_(impl), comm_(comm) {
  MPI_Comm_size(comm, &size_);
}

int element_bytes(NbcOp op) { return is_reduction(op) ? static_cast<int>(sizeof(double)) : 1; }

int NbcOperation::element_bytes() const { return bench::element_bytes(op_); }

long NbcOperation::max_elements(double max_bytes) const {
  if (!has_size()) return 0;
  const auto [s, r] = buffer_factors(op_, size_);
  const double per_element = static_cast<double>((s + r) * element_bytes());
  const double by_memory = max_bytes / per_element;
  const double by_int = static_cast<double>(INT_MAX) / static_cast<double>(std::max(s, r));
  return static_cast<long>(std::min(by_memory, by_int));
}

void NbcOperation::resize(long elements) {
  const auto [s, r] = buffer_factors(op_, size_);
  const auto bytes = static_cast<std::size_t>(elements * element_bytes());
  // assign() touches every page, so first use inside a measurement costs no page faults.
  send_.assign(bytes * static_cast<std::size_t>(s), 1);
  recv_.assign(bytes * static_cast<std::size_t>(r), 0);
  elements_ = elements;
}

namespace {

// MPI's collectives and liboverlap's have the same signatures: one table each, one switch.
struct CollectiveCalls {
  decltype(&MPI_Ibcast) ibcast;
  decltype(&MPI_Ireduce) ireduce;
  decltype(&MPI_Iallreduce) iallreduce;
  decltype(&MPI_Iallgather) iallgather;
  decltype(&MPI_Ialltoall) ialltoall;
  decltype(&MPI_Igather) igather;
  decltype(&MPI_Iscatter) iscatter;
  decltype(&MPI_Ireduce_scatter_block) ireduce_scatter_block;
  decltype(&MPI_Ibarrier) ibarrier;
};

const CollectiveCalls kMpiCalls{
    MPI_Ibcast,    MPI_Ireduce, MPI_Iallreduce, MPI_Iallgather,
    MPI_Ialltoall, MPI_Igather, MPI_Iscatter,   MPI_Ireduce_scatter_block,
    MPI_Ibarrier};
const CollectiveCalls kOverlapCalls{
    OVX_Ibcast,    OVX_Ireduce, OVX_Iallreduce, OVX_Iallgather,
    OVX_Ialltoall, OVX_Igather, OVX_Iscatter,   OVX_Ireduce_scatter_block,
    OVX_Ibarrier};

}  // namespace

MPI_Request NbcOperation::start() {
  const CollectiveCalls& call = impl_ == NbcImpl::overlap ? kOverlapCalls : kMpiCalls;
  MPI_Request req = MPI_REQUEST_NULL;
  const bool reduction = is_reduction(op_);
  const MPI_Datatype type = reduction ? MPI_DOUBLE : MPI_BYTE;
  const int n = to_int(elements_);
  void* s = send_.data();
  void* r = recv_.data();
  switch (op_) {
    case NbcOp::ibcast:
      call.ibcast(s, n, type, 0, comm_, &req);
      break;
    case NbcOp::ireduce:
      call.ireduce(s, r, n, type, MPI_SUM, 0, comm_, &req);
      break;
    case NbcOp::iallreduce:
      call.iallreduce(s, r, n, type, MPI_SUM, comm_, &req);
      break;
    case NbcOp::iallgather:
      call.iallgather(s, n, type, r, n, type, comm_, &req);
      break;
    case NbcOp::ialltoall:
      call.ialltoall(s, n, type, r, n, type, comm_, &req);
      break;
    case NbcOp::igather:
      call.igather(s, n, type, r, n, type, 0, comm_, &req);
      break;
    case NbcOp::iscatter:
      call.iscatter(s, n, type, r, n, type, 0, comm_, &req);
      break;
    case NbcOp::ireduce_scatter_block:
      call.ireduce_scatter_block(s, r, n, type, MPI_SUM, comm_, &req);
      break;
    case NbcOp::ibarrier:
      call.ibarrier(comm_, &req);
      break;
  }
  return req;
}

}  // namespace overlap::bench
