// The Transport over MPI point-to-point: bytes on the collective's duplicated
// communicator, tags inside the collective's own tag range. Every call goes to the PMPI_
// entry points, so a profiler or an interposition library (which wraps MPI_*) neither sees
// nor re-enters liboverlap's internal traffic.
#pragma once

#include <mpi.h>

#include <memory>

#include "progress/transport.hpp"

namespace overlap::progress {

static_assert(sizeof(MPI_Request) <= sizeof(RequestSlot), "MPI_Request must fit a RequestSlot");
static_assert(sizeof(MPI_Status) <= sizeof(RequestStatus), "MPI_Status must fit a RequestStatus");

RequestSlot to_slot(MPI_Request request);
MPI_Request from_slot(RequestSlot slot);
MPI_Status to_status(const RequestStatus& status);

// Tests MPI requests: one PMPI_Testsome over all of them.
class MpiRequestTester : public RequestTester {
 public:
  void test_some(std::span<RequestSlot> slots, std::vector<std::size_t>& done,
                 RequestStatus* statuses) override;
  // PMPI_Request_get_status, then PMPI_Wait once finished: both libraries run their
  // progress in get_status only when the request has not finished (MPICH 4.0's
  // MPI_Testsome runs it before it looks, Open MPI's when nothing finished) and not in a
  // wait on a finished one.
  bool test_one(RequestSlot& slot) override;
  void cancel(RequestSlot slot) override;
  // One PMPI_Iprobe of this rank's own messages on MPI_COMM_WORLD with tag MPI_TAG_UB:
  // MPI must progress inside it (MPI 4.0 sec. 3.8.1) and both libraries run their whole
  // progress loop there when it finds nothing; a probe consumes nothing.
  void poke() override;
};

// The process's one MPI tester (stateless; shared by every graph and watch).
MpiRequestTester& mpi_request_tester();

class MpiTransport : public Transport {
 public:
  // `*comm` is read when a task starts, so it may still be in the making (MPI_Comm_idup)
  // when the graph is built; `keep_alive` owns it and lives as long as the transport.
  MpiTransport(const MPI_Comm* comm, int tag_base, std::shared_ptr<const void> keep_alive)
      : comm_(comm), tag_base_(tag_base), keep_alive_(std::move(keep_alive)) {}
  ~MpiTransport() override;
  RequestSlot post_send(const void* buf, std::size_t bytes, int peer, int tag) override;
  RequestSlot post_recv(void* buf, std::size_t bytes, int peer, int tag) override;
  RequestTester& tester() override { return mpi_request_tester(); }

 private:
  const MPI_Comm* comm_;
  int tag_base_;
  std::shared_ptr<const void> keep_alive_;
};

}  // namespace overlap::progress
