// What a task graph needs from the network: post a send or a receive, and a tester that
// tells which posted operations finished. The MPI implementation lives in mpi_transport;
// tests use an in-memory fake, so the task graphs and the scheduler are checked without MPI.
//
// Posting is per graph (each collective has its own communicator and tag range); testing
// is per tester, so the scheduler can test every operation in flight, of every graph, in
// one call (one MPI_Testsome per pass: each MPI test call runs the library's whole
// progress loop, so one call per request would multiply that work).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace overlap::progress {

// Opaque slot a transport stores its own request in (an MPI_Request fits: it is an int in
// MPICH and a pointer in Open MPI). Zero means "no request".
using RequestSlot = std::uint64_t;

// Opaque completion status (an MPI_Status fits); only requests watched on behalf of
// another layer (Scheduler::watch) ever look at it.
struct RequestStatus {
  alignas(8) std::byte bytes[64];
};

class RequestTester {
 public:
  virtual ~RequestTester() = default;
  // Tests every slot. Appends the index of each finished one to `done` and sets its slot
  // to 0; when `statuses` is not null it has one entry per slot and receives the status
  // of each finished one.
  virtual void test_some(std::span<RequestSlot> slots, std::vector<std::size_t>& done,
                         RequestStatus* statuses) = 0;
  // Tests one slot whose status nobody needs; when it finished, releases it, sets it to 0
  // and returns true. Unlike test_some it must not drive the transport's progress when
  // the operation has finished already (a send that left inside its post), and drives it
  // at most once otherwise.
  virtual bool test_one(RequestSlot& slot) {
    std::vector<std::size_t> done;
    test_some({&slot, 1}, done, nullptr);
    return !done.empty();
  }
  // Asks for a posted receive to be cancelled (shutdown of an erroneous program); the
  // slot must still be tested until it finishes, cancelled or not.
  virtual void cancel(RequestSlot slot) = 0;
  // Drives the transport's own progress once, without any request of ours: for
  // operations the application posted itself and completes itself, which only move
  // while someone calls into the library (Scheduler::hold).
  virtual void poke() {}
};

class Transport {
 public:
  virtual ~Transport() = default;
  // `tag` is the task's tag inside its collective; the transport maps it into the
  // collective's own tag space. Zero-byte messages are real messages.
  virtual RequestSlot post_send(const void* buf, std::size_t bytes, int peer, int tag) = 0;
  virtual RequestSlot post_recv(void* buf, std::size_t bytes, int peer, int tag) = 0;
  // Tests what this transport posted; shared by every transport of the same kind.
  virtual RequestTester& tester() = 0;
};

}  // namespace overlap::progress
