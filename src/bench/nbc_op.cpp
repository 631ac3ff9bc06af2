#include "bench/nbc_op.hpp"

#include <climits>
#include <stdexcept>
#include <utility>

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

NbcOperation::NbcOperation(NbcOp op, MPI_Comm comm) : op_(op), comm_(comm) {
  MPI_Comm_size(comm, &size_);
}

int NbcOperation::element_bytes() const {
  return is_reduction(op_) ? static_cast<int>(sizeof(double)) : 1;
}

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

MPI_Request NbcOperation::start() {
  MPI_Request req = MPI_REQUEST_NULL;
  const bool reduction = is_reduction(op_);
  const MPI_Datatype type = reduction ? MPI_DOUBLE : MPI_BYTE;
  const int n = to_int(elements_);
  void* s = send_.data();
  void* r = recv_.data();
  switch (op_) {
    case NbcOp::ibcast:
      MPI_Ibcast(s, n, type, 0, comm_, &req);
      break;
    case NbcOp::ireduce:
      MPI_Ireduce(s, r, n, type, MPI_SUM, 0, comm_, &req);
      break;
    case NbcOp::iallreduce:
      MPI_Iallreduce(s, r, n, type, MPI_SUM, comm_, &req);
      break;
    case NbcOp::iallgather:
      MPI_Iallgather(s, n, type, r, n, type, comm_, &req);
      break;
    case NbcOp::ialltoall:
      MPI_Ialltoall(s, n, type, r, n, type, comm_, &req);
      break;
    case NbcOp::igather:
      MPI_Igather(s, n, type, r, n, type, 0, comm_, &req);
      break;
    case NbcOp::iscatter:
      MPI_Iscatter(s, n, type, r, n, type, 0, comm_, &req);
      break;
    case NbcOp::ireduce_scatter_block:
      MPI_Ireduce_scatter_block(s, r, n, type, MPI_SUM, comm_, &req);
      break;
    case NbcOp::ibarrier:
      MPI_Ibarrier(comm_, &req);
      break;
  }
  return req;
}

}  // namespace overlap::bench
