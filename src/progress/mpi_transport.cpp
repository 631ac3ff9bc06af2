#include "progress/mpi_transport.hpp"

#include <climits>
#include <cstring>

namespace overlap::progress {
namespace {

static_assert(sizeof(MPI_Request) <= sizeof(RequestSlot), "MPI_Request must fit a RequestSlot");

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

// The C API refuses buffers above INT_MAX bytes, so this cast never truncates.
int as_count(std::size_t bytes) { return static_cast<int>(bytes); }

}  // namespace

MpiTransport::~MpiTransport() = default;

// MPI errors on the internal communicator abort (its error handler is
// MPI_ERRORS_ARE_FATAL), with the MPI error string: there is no sane way to carry on
// with half a collective.
RequestSlot MpiTransport::post_send(const void* buf, std::size_t bytes, int peer, int tag) {
  MPI_Request r;
  MPI_Isend(buf, as_count(bytes), MPI_BYTE, peer, tag_base_ + tag, *comm_, &r);
  return to_slot(r);
}

RequestSlot MpiTransport::post_recv(void* buf, std::size_t bytes, int peer, int tag) {
  MPI_Request r;
  MPI_Irecv(buf, as_count(bytes), MPI_BYTE, peer, tag_base_ + tag, *comm_, &r);
  return to_slot(r);
}

bool MpiTransport::test(RequestSlot& slot) {
  MPI_Request r = from_slot(slot);
  int done = 0;
  MPI_Test(&r, &done, MPI_STATUS_IGNORE);
  slot = to_slot(r);
  return done != 0;
}

}  // namespace overlap::progress
