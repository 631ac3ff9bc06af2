#include "progress/mpi_transport.hpp"

#include <climits>
#include <cstring>

namespace overlap::progress {
namespace {

// The C API refuses buffers above INT_MAX bytes, so this cast never truncates.
int as_count(std::size_t bytes) { return static_cast<int>(bytes); }

int tag_ub() {
  static const int ub = [] {
    void* value = nullptr;
    int flag = 0;
    PMPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &value, &flag);
    return flag != 0 ? *static_cast<int*>(value) : 32767;
  }();
  return ub;
}

// This process's rank in MPI_COMM_WORLD, which never changes.
int world_rank() {
  static const int rank = [] {
    int r = 0;
    PMPI_Comm_rank(MPI_COMM_WORLD, &r);
    return r;
  }();
  return rank;
}

}  // namespace

RequestSlot to_slot(MPI_Request r) {
  RequestSlot s = 0;
  std::memcpy(&s, &r, sizeof r);
  return s;
}

MPI_Request from_slot(RequestSlot s) {
  MPI_Request r;
  std::memcpy(&r, &s, sizeof r);
  return r;
}

MPI_Status to_status(const RequestStatus& status) {
  MPI_Status s;
  std::memcpy(&s, status.bytes, sizeof s);
  return s;
}

void MpiRequestTester::test_some(std::span<RequestSlot> slots, std::vector<std::size_t>& done,
                                 RequestStatus* statuses) {
  // Per thread: several schedulers (tests) may test at once; no allocation per pass.
  thread_local std::vector<MPI_Request> requests;
  thread_local std::vector<int> indices;
  thread_local std::vector<MPI_Status> mpi_statuses;
  const auto n = slots.size();
  requests.resize(n);
  indices.resize(n);
  for (std::size_t i = 0; i < n; ++i) requests[i] = from_slot(slots[i]);
  if (statuses != nullptr) mpi_statuses.resize(n);
  int outcount = 0;
  // Errors on liboverlap's own communicators abort (MPI_ERRORS_ARE_FATAL); a watched
  // request's error is in its status.
  const int rc = PMPI_Testsome(static_cast<int>(n), requests.data(), &outcount, indices.data(),
                               statuses != nullptr ? mpi_statuses.data() : MPI_STATUSES_IGNORE);
  if (outcount == MPI_UNDEFINED) return;
  for (int k = 0; k < outcount; ++k) {
    const auto i = static_cast<std::size_t>(indices[static_cast<std::size_t>(k)]);
    slots[i] = 0;
    done.push_back(i);
    if (statuses == nullptr) continue;
    MPI_Status& st = mpi_statuses[static_cast<std::size_t>(k)];
    // MPI sets MPI_ERROR only when the call returns MPI_ERR_IN_STATUS (MPI 4.0 sec.
    // 3.7.5); MPICH leaves it alone otherwise, and this vector is reused across passes.
    if (rc != MPI_ERR_IN_STATUS) st.MPI_ERROR = MPI_SUCCESS;
    std::memcpy(statuses[i].bytes, &st, sizeof(MPI_Status));
  }
}

bool MpiRequestTester::test_one(RequestSlot& slot) {
  MPI_Request r = from_slot(slot);
  int flag = 0;
  PMPI_Request_get_status(r, &flag, MPI_STATUS_IGNORE);
  if (flag == 0) return false;
  // Finished: the wait returns at once, runs no progress round in either library (MPICH
  // 4.0's MPI_Request_free runs one), and an error of the send reaches the hidden
  // communicator's handler as from a test.
  PMPI_Wait(&r, MPI_STATUS_IGNORE);
  slot = 0;
  return true;
}

void MpiRequestTester::cancel(RequestSlot slot) {
  MPI_Request r = from_slot(slot);
  PMPI_Cancel(&r);
}

void MpiRequestTester::poke() {
  // Not MPI_COMM_SELF: MPICH's ch4 answers probes on a one-process communicator from its
  // self queue without running progress. A probe from this rank to itself with the
  // largest tag is unlikely to find anything; when it does, this one pass just does not
  // progress (MPICH runs progress only when nothing was found).
  int flag = 0;
  PMPI_Iprobe(world_rank(), tag_ub(), MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
}

MpiRequestTester& mpi_request_tester() {
  static MpiRequestTester tester;
  return tester;
}

MpiTransport::~MpiTransport() = default;

// MPI errors on the internal communicator abort (its error handler is
// MPI_ERRORS_ARE_FATAL), with the MPI error string: there is no sane way to carry on
// with half a collective.
RequestSlot MpiTransport::post_send(const void* buf, std::size_t bytes, int peer, int tag) {
  MPI_Request r;
  PMPI_Isend(buf, as_count(bytes), MPI_BYTE, peer, tag_base_ + tag, *comm_, &r);
  return to_slot(r);
}

RequestSlot MpiTransport::post_recv(void* buf, std::size_t bytes, int peer, int tag) {
  MPI_Request r;
  PMPI_Irecv(buf, as_count(bytes), MPI_BYTE, peer, tag_base_ + tag, *comm_, &r);
  return to_slot(r);
}

}  // namespace overlap::progress
