// The Transport over MPI point-to-point: bytes on the collective's duplicated
// communicator, tags inside the collective's own tag range.
#pragma once

#include <mpi.h>

#include <memory>

#include "progress/transport.hpp"

namespace overlap::progress {

class MpiTransport : public Transport {
 public:
  // `*comm` is read when a task starts, so it may still be in the making (MPI_Comm_idup)
  // when the graph is built; `keep_alive` owns it and lives as long as the transport.
  MpiTransport(const MPI_Comm* comm, int tag_base, std::shared_ptr<const void> keep_alive)
      : comm_(comm), tag_base_(tag_base), keep_alive_(std::move(keep_alive)) {}
  ~MpiTransport() override;
  RequestSlot post_send(const void* buf, std::size_t bytes, int peer, int tag) override;
  RequestSlot post_recv(void* buf, std::size_t bytes, int peer, int tag) override;
  bool test(RequestSlot& slot) override;

 private:
  const MPI_Comm* comm_;
  int tag_base_;
  std::shared_ptr<const void> keep_alive_;
};

}  // namespace overlap::progress
