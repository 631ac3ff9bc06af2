// Memory the program's own requests hand to MPI beyond the call that made them: the
// buffers of its nonblocking calls (point-to-point, collectives, MPI-IO, request-based
// one-sided) from the call's return until the request completes, and those of its
// persistent requests while they are active (from MPI_Start until completed; a
// partitioned send's partitions from MPI_Pready on). MPI (or, through shared memory, the
// peer) may read or write that memory at any time meanwhile, so no deferred transfer may
// protect a page of it: a receive into it is not deferred (`owned_by_request`), a send
// from it is sent from a copy when MPI may write it. Both MPIs run programs that receive
// into a buffer their own pending send still reads (strictly erroneous); without this the
// protection made MPI fault and the job abort. docs/overlap-run.md, "Memory the program's
// requests hold".
#pragma once

#include <mpi.h>

#include <atomic>
#include <cstdint>
#include <mutex>
#include <optional>
#include <unordered_map>
#include <vector>

#include "intercept/runtime/footprint.hpp"

namespace overlap::intercept {

class ProgramRequests {
 public:
  // A request as seen before a call that may complete it: what happens to it afterwards
  // must not touch a later request MPI gave the same handle (another thread's, meanwhile).
  struct Seen {
    int index = 0;
    MPI_Request request = MPI_REQUEST_NULL;
    std::uint64_t serial = 0;
  };
  // A partitioned send's buffer: partition p is `count` elements of a type with these
  // extents at buf + p * count * extent.
  struct Partitions {
    std::uintptr_t buf = 0;
    std::int64_t count = 0;
    TypeExtent type;
  };

  // `request` (just returned by MPI) holds `spans`: from now on until it completes, or,
  // when `persistent`, while it is active. `unknown`: its memory cannot be told from the
  // call's arguments; while it holds memory no page may be protected.
  void add(MPI_Request request, std::vector<Span> spans, bool unknown, bool persistent);
  // A partitioned send: while active it holds the partitions readied so far.
  void add_partitioned_send(MPI_Request request, const Partitions& partitions);
  // MPI_Start(all) started it: it holds its memory (a partitioned send: nothing yet).
  void started(MPI_Request request);
  // MPI_Pready* of partitions first..last of an active partitioned send.
  void readied(MPI_Request request, std::int64_t first, std::int64_t last);

  // The tracked requests among requests[0, n), before a call that may complete them.
  void seen(int n, const MPI_Request* requests, std::vector<Seen>& out) const;
  // After that call: a request MPI freed (its handle is MPI_REQUEST_NULL now) is forgotten;
  // a persistent one the call completed (`done(index)`) holds nothing until started again.
  template <class Done>
  void after_completion(const std::vector<Seen>& seen, const MPI_Request* requests, Done done) {
    for (const Seen& s : seen) {
      if (requests[s.index] == MPI_REQUEST_NULL)
        forget(s.request, s.serial);
      else if (done(s.index))
        completed(s.request, s.serial);
    }
  }
  // The request is gone (freed, or completed in the engine after the program freed it).
  void forget(MPI_Request request, std::uint64_t serial);
  // Whether the program's requests hold any byte of [lo, hi): any request when
  // `writers_only` is false, else only those MPI may write into.
  bool holds(std::uintptr_t lo, std::uintptr_t hi, bool writers_only) const;
  // The request's serial, and whether it is persistent; nullopt when it is not tracked.
  std::optional<bool> persistent(MPI_Request request, std::uint64_t& serial) const;
  bool any() const { return live_.load(std::memory_order_acquire) > 0; }

 private:
  struct Entry {
    std::vector<Span> spans;  // what it holds while active
    std::vector<Span> held;   // what it holds now
    bool unknown = false;
    bool persistent = false;
    bool active = false;
    std::optional<Partitions> partitions;
    std::uint64_t serial = 0;
  };
  void completed(MPI_Request request, std::uint64_t serial);
  void insert(MPI_Request request, Entry entry);  // mu_ held
  void set_active(Entry& e, bool active);         // mu_ held
  mutable std::mutex mu_;
  std::unordered_map<MPI_Request, Entry> map_;
  int unknown_active_ = 0;  // active entries whose memory is unknown, under mu_
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
