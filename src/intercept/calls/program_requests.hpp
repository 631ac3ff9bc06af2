// Memory the program's own requests hand to MPI beyond the call that made them: the
// buffers of its nonblocking and persistent calls (point-to-point, collectives, MPI-IO,
// request-based one-sided), from the call's return until the request completes (Wait/Test)
// or, for a persistent request, until it is freed. MPI (or, through shared memory, the
// peer) may read or write that memory at any time meanwhile, so no deferred transfer may
// protect a page of it: a receive into it is not deferred (`owned_by_request`), a send
// from it is sent from a copy when MPI may write it. Both MPIs run programs that receive
// into a buffer their own pending send still reads (strictly erroneous); without this
// the protection made MPI fault and the job abort. docs/overlap-run.md, "Memory the
// program's requests hold".
#pragma once

#include <mpi.h>

#include <atomic>
#include <cstdint>
#include <mutex>
#include <unordered_map>
#include <vector>

#include "intercept/runtime/footprint.hpp"

namespace overlap::intercept {

class ProgramRequests {
 public:
  // A request, as seen before a call that may complete it: forgetting it afterwards must
  // not forget a later request MPI gave the same handle (another thread's, meanwhile).
  struct Held {
    int index = 0;
    MPI_Request request = MPI_REQUEST_NULL;
    std::uint64_t serial = 0;
  };

  // `request` (just returned by MPI) holds `spans` until it completes, or, when
  // `persistent`, until it is freed. `unknown`: its memory cannot be told from the call's
  // arguments; while it lives no page may be protected.
  void add(MPI_Request request, std::vector<Span> spans, bool unknown, bool persistent);
  // The tracked requests among requests[0, n), before a call that may complete them.
  void held(int n, const MPI_Request* requests, std::vector<Held>& out) const;
  // After that call: those MPI completed and freed (their handle is MPI_REQUEST_NULL now).
  void release_completed(const std::vector<Held>& held, const MPI_Request* requests);
  // The request is gone (freed, or completed in the engine after the program freed it).
  void forget(MPI_Request request, std::uint64_t serial);
  // Whether the program's requests hold any byte of [lo, hi): any request when
  // `writers_only` is false, else only those MPI may write into.
  bool holds(std::uintptr_t lo, std::uintptr_t hi, bool writers_only) const;
  // Whether a request is persistent (then MPI_Request_free ends its hold at once).
  bool persistent(MPI_Request request, std::uint64_t& serial) const;
  bool any() const { return live_.load(std::memory_order_acquire) > 0; }

 private:
  struct Entry {
    std::vector<Span> spans;
    bool unknown = false;
    bool persistent = false;
    std::uint64_t serial = 0;
  };
  mutable std::mutex mu_;
  std::unordered_map<MPI_Request, Entry> map_;
  int unknown_ = 0;  // live entries whose memory is unknown, under mu_
  std::uint64_t next_serial_ = 1;
  std::atomic<int> live_{0};
};

ProgramRequests& program_requests();

// While the calling thread is inside an interposed call that returns a request (kinds
// FENCE_REQ and EXPOSE_REQ of mpi_functions.def), the fence's footprint is kept for it.
void begin_request_footprint();
// The footprint kept, recorded under *request when the call succeeded.
void end_request_footprint(int rc, const MPI_Request* request, bool persistent);
// Whether this thread keeps a footprint now, and where it goes (fence_calls.cpp).
struct FootprintRecord {
  bool on = false;
  bool unknown = false;
  std::vector<Span> spans;
};
FootprintRecord& request_footprint();

}  // namespace overlap::intercept
