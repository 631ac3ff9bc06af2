#include "bench/common/collective.hpp"

#include <fmt/format.h>

#include <climits>
#include <limits>
#include <new>
#include <stdexcept>
#include <utility>

#include "overlap/overlap.h"

namespace overlap::bench {
namespace {

bool is_reduction(Collective op) {
  return op == Collective::reduce || op == Collective::allreduce ||
         op == Collective::reduce_scatter_block;
}

// Buffer lengths in messages (elements x this) for send and receive.
std::pair<long, long> buffer_factors(Collective op, int p) {
  switch (op) {
    case Collective::bcast:
      return {1, 0};
    case Collective::reduce:
    case Collective::allreduce:
      return {1, 1};
    case Collective::allgather:
    case Collective::gather:
      return {1, p};
    case Collective::alltoall:
      return {p, p};
    case Collective::scatter:
    case Collective::reduce_scatter_block:
      return {p, 1};
    case Collective::barrier:
      return {0, 0};
    case Collective::halo:
      return {2, 2};  // one message to and from each neighbour
  }
  return {0, 0};
}

int to_int(long count) {
  if (count > INT_MAX) throw std::length_error("message count exceeds MPI's int");
  return static_cast<int>(count);
}

// MPI's nonblocking collectives, liboverlap's and MPI's blocking ones take the same
// arguments (minus the request): one table per family, one switch.
struct NonblockingCalls {
  decltype(&MPI_Ibcast) bcast;
  decltype(&MPI_Ireduce) reduce;
  decltype(&MPI_Iallreduce) allreduce;
  decltype(&MPI_Iallgather) allgather;
  decltype(&MPI_Ialltoall) alltoall;
  decltype(&MPI_Igather) gather;
  decltype(&MPI_Iscatter) scatter;
  decltype(&MPI_Ireduce_scatter_block) reduce_scatter_block;
  decltype(&MPI_Ibarrier) barrier;
};

const NonblockingCalls kMpiCalls{
    MPI_Ibcast,    MPI_Ireduce, MPI_Iallreduce, MPI_Iallgather,
    MPI_Ialltoall, MPI_Igather, MPI_Iscatter,   MPI_Ireduce_scatter_block,
    MPI_Ibarrier};
const NonblockingCalls kOverlapCalls{
    OVX_Ibcast,    OVX_Ireduce, OVX_Iallreduce, OVX_Iallgather,
    OVX_Ialltoall, OVX_Igather, OVX_Iscatter,   OVX_Ireduce_scatter_block,
    OVX_Ibarrier};

}  // namespace

int element_bytes(Collective op) { return is_reduction(op) ? static_cast<int>(sizeof(double)) : 1; }

std::string liboverlap_algorithm(Collective op, Implementation impl, long msg_bytes, int size) {
  if (impl != Implementation::overlap || op == Collective::halo) return "";
  const long count = msg_bytes / element_bytes(op);
  const char* name =
      OVX_Algorithm(std::string(kBlockingNames.name(op)).c_str(), msg_bytes, count, size);
  return name == nullptr ? "" : name;
}

CollectiveCall::CollectiveCall(Collective op, Implementation impl, MPI_Comm comm)
    : op_(op), impl_(impl), comm_(comm) {
  MPI_Comm_size(comm, &size_);
  MPI_Comm_rank(comm, &rank_);
}

int CollectiveCall::element_bytes() const { return bench::element_bytes(op_); }

long CollectiveCall::max_elements(double max_bytes) const {
  if (!has_size()) return 0;
  const auto [s, r] = buffer_factors(op_, size_);
  const double per_element = static_cast<double>((s + r) * element_bytes());
  const double by_memory = max_bytes / per_element;
  const double by_int = static_cast<double>(INT_MAX) / static_cast<double>(std::max(s, r));
  return static_cast<long>(std::min(by_memory, by_int));
}

void CollectiveCall::resize(long elements) {
  const auto [s, r] = buffer_factors(op_, size_);
  const auto bytes = static_cast<std::size_t>(elements * element_bytes());
  // assign() touches every page, so first use inside a measurement costs no page faults.
  send_.assign(bytes * static_cast<std::size_t>(s), 1);
  recv_.assign(bytes * static_cast<std::size_t>(r), 0);
  elements_ = elements;
}

void CollectiveCall::start() {
  if (op_ == Collective::halo) {
    start_halo();
    return;
  }
  const NonblockingCalls& call = impl_ == Implementation::overlap ? kOverlapCalls : kMpiCalls;
  const MPI_Datatype type = is_reduction(op_) ? MPI_DOUBLE : MPI_BYTE;
  const int n = to_int(elements_);
  void* s = send_.data();
  void* r = recv_.data();
  MPI_Request* req = &request_;
  switch (op_) {
    case Collective::bcast:
      call.bcast(s, n, type, 0, comm_, req);
      break;
    case Collective::reduce:
      call.reduce(s, r, n, type, MPI_SUM, 0, comm_, req);
      break;
    case Collective::allreduce:
      call.allreduce(s, r, n, type, MPI_SUM, comm_, req);
      break;
    case Collective::allgather:
      call.allgather(s, n, type, r, n, type, comm_, req);
      break;
    case Collective::alltoall:
      call.alltoall(s, n, type, r, n, type, comm_, req);
      break;
    case Collective::gather:
      call.gather(s, n, type, r, n, type, 0, comm_, req);
      break;
    case Collective::scatter:
      call.scatter(s, n, type, r, n, type, 0, comm_, req);
      break;
    case Collective::reduce_scatter_block:
      call.reduce_scatter_block(s, r, n, type, MPI_SUM, comm_, req);
      break;
    case Collective::barrier:
      call.barrier(comm_, req);
      break;
    case Collective::halo:
      break;  // start_halo()
  }
}

// Tags of their own: the halo's messages never match another point-to-point message a
// benchmark sends on the same communicator (the clock's, the peers' protocols).
constexpr int kHaloTagRightward = 0x4a10;
constexpr int kHaloTagLeftward = 0x4a11;

void CollectiveCall::start_halo() {
  const int left = (rank_ + size_ - 1) % size_;
  const int right = (rank_ + 1) % size_;
  const int n = to_int(elements_);
  const auto bytes = static_cast<std::size_t>(n);
  if (impl_ == Implementation::overlap && !progressing_) {
    if (OVX_Progress_begin() != MPI_SUCCESS) throw std::runtime_error("OVX_Progress_begin failed");
    progressing_ = true;
  }
  // Receives first, as a stencil code posts them: a message from the left came rightward.
  MPI_Irecv(recv_.data(), n, MPI_BYTE, left, kHaloTagRightward, comm_, &halo_[0]);
  MPI_Irecv(recv_.data() + bytes, n, MPI_BYTE, right, kHaloTagLeftward, comm_, &halo_[1]);
  MPI_Isend(send_.data(), n, MPI_BYTE, right, kHaloTagRightward, comm_, &halo_[2]);
  MPI_Isend(send_.data() + bytes, n, MPI_BYTE, left, kHaloTagLeftward, comm_, &halo_[3]);
}

bool CollectiveCall::test() {
  int done = 0;
  if (op_ == Collective::halo) {
    MPI_Testall(4, halo_, &done, MPI_STATUSES_IGNORE);
  } else {
    MPI_Test(&request_, &done, MPI_STATUS_IGNORE);
  }
  return done != 0;
}

void CollectiveCall::wait() {
  if (op_ != Collective::halo) {
    MPI_Wait(&request_, MPI_STATUS_IGNORE);
    return;
  }
  MPI_Waitall(4, halo_, MPI_STATUSES_IGNORE);
  if (progressing_) {
    progressing_ = false;
    if (OVX_Progress_end() != MPI_SUCCESS) throw std::runtime_error("OVX_Progress_end failed");
  }
}

void CollectiveCall::run_blocking() {
  if (impl_ == Implementation::overlap || op_ == Collective::halo) {
    start();
    wait();
    return;
  }
  const MPI_Datatype type = is_reduction(op_) ? MPI_DOUBLE : MPI_BYTE;
  const int n = to_int(elements_);
  void* s = send_.data();
  void* r = recv_.data();
  switch (op_) {
    case Collective::bcast:
      MPI_Bcast(s, n, type, 0, comm_);
      break;
    case Collective::reduce:
      MPI_Reduce(s, r, n, type, MPI_SUM, 0, comm_);
      break;
    case Collective::allreduce:
      MPI_Allreduce(s, r, n, type, MPI_SUM, comm_);
      break;
    case Collective::allgather:
      MPI_Allgather(s, n, type, r, n, type, comm_);
      break;
    case Collective::alltoall:
      MPI_Alltoall(s, n, type, r, n, type, comm_);
      break;
    case Collective::gather:
      MPI_Gather(s, n, type, r, n, type, 0, comm_);
      break;
    case Collective::scatter:
      MPI_Scatter(s, n, type, r, n, type, 0, comm_);
      break;
    case Collective::reduce_scatter_block:
      MPI_Reduce_scatter_block(s, r, n, type, MPI_SUM, comm_);
      break;
    case Collective::barrier:
      MPI_Barrier(comm_);
      break;
    case Collective::halo:
      break;  // above
  }
  observe_result();
}

void CollectiveCall::observe_result() const {
  // Under overlap-run a blocking collective may return before it completed, its result's
  // pages closed until then: reading one byte of the result waits for it, so the call is
  // timed to its completion there too (and costs one load from cache in a plain run).
  const bool has_result = (op_ == Collective::bcast && rank_ != 0) ||
                          op_ == Collective::allreduce || op_ == Collective::allgather ||
                          op_ == Collective::alltoall || op_ == Collective::scatter ||
                          op_ == Collective::reduce_scatter_block ||
                          ((op_ == Collective::reduce || op_ == Collective::gather) && rank_ == 0);
  if (!has_result || elements_ == 0) return;
  const unsigned char* at = op_ == Collective::bcast ? send_.data() : recv_.data();
  if (at != nullptr) observed_ = *static_cast<const volatile unsigned char*>(at);
}

std::string prepare_buffers(std::vector<CollectiveCall>& calls, long elements,
                            const CollectiveNames& names, int rank) {
  for (CollectiveCall& call : calls) {
    if (!call.has_size()) continue;
    const long bytes = elements * call.element_bytes();
    if (elements < 1) {
      return fmt::format("less than one element of {} ({} B)", names.name(call.op()),
                         call.element_bytes());
    }
    // With no memory limit, max_elements() is the largest count MPI's int can carry.
    const long most = call.max_elements(std::numeric_limits<double>::infinity());
    if (elements > most) {
      return fmt::format("{} elements of {} exceed MPI's int counts (at most {} here)", elements,
                         names.name(call.op()), most);
    }
    try {
      call.resize(elements);
    } catch (const std::bad_alloc&) {
      return fmt::format("cannot allocate the buffers for {} B messages on rank {}", bytes, rank);
    } catch (const std::length_error&) {
      return fmt::format("the buffers for {} B messages are too large on rank {}", bytes, rank);
    }
  }
  return "";
}

}  // namespace overlap::bench
