// What a task graph needs from the network: post a send or a receive, then test it. The
// MPI implementation lives in mpi_transport; tests use an in-memory fake, so the task
// graphs and the scheduler are checked without MPI.
#pragma once

#include <cstddef>
#include <cstdint>

namespace overlap::progress {

// Opaque slot a transport stores its own request in (an MPI_Request fits: it is an int in
// MPICH and a pointer in Open MPI). Zero means "no request".
using RequestSlot = std::uint64_t;

class Transport {
 public:
  virtual ~Transport() = default;
  // `tag` is the task's tag inside its collective; the transport maps it into the
  // collective's own tag space. Zero-byte messages are real messages.
  virtual RequestSlot post_send(const void* buf, std::size_t bytes, int peer, int tag) = 0;
  virtual RequestSlot post_recv(void* buf, std::size_t bytes, int peer, int tag) = 0;
  // True once the operation finished; the slot is then released.
  virtual bool test(RequestSlot& slot) = 0;
};

}  // namespace overlap::progress
