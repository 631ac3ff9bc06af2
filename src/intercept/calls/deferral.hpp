// The decision whether a blocking call may return before its transfer is done, and the
// two ways of deferring: a send whose buffer's pages are its own is protected read-only
// and sent in place; any other send is copied first (its buffer is free at once); a
// receive goes to an internal buffer while the program's pages are no-access, and its
// data is placed when it arrives. docs/overlap-run.md has the rules and why.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <optional>

#include "intercept/report/call_sites.hpp"
#include "intercept/runtime/transfer_table.hpp"

namespace overlap::intercept {

// The bytes [lo, hi) a (buffer, count, datatype) spans. A datatype whose bytes lie in
// memory order without holes spans exactly the message; any other (holes, a resized
// extent, a typemap out of memory order) spans the hull of its elements (`holes`): a send
// then goes from a copy of the hull, a receive lands on a snapshot of it and is placed
// whole, so the bytes between the elements keep the program's values.
struct Extent {
  std::uintptr_t lo = 0, hi = 0;
  std::uint64_t bytes = 0;  // the message's
  MPI_Aint offset = 0;      // lo - buf: where MPI's (count, type) starts relative to lo
  bool holes = false;
};

// Why the call may not be deferred, or nothing (then `e` is filled). `bytes` is
// message_bytes(count, type), which the caller has for its statistics already. A receive
// has rules of its own (errors must reach the call; holes only without other threads).
std::optional<Reason> check_deferrable(const void* buf, int count, MPI_Datatype type,
                                       std::uint64_t bytes, MPI_Comm comm, bool receive, Extent& e);
// Whether the communicator's error handler ends the job on an error (MPI_ERRORS_ARE_FATAL,
// MPI_ERRORS_ABORT).
bool communicator_fatal(MPI_Comm comm);
// Whether MPI would accept a send of this destination and tag on `comm` (what it checks
// when a send is posted): where not, the call runs as written and MPI reports its error
// itself, naming the program's call (a deferral would have it name MPI_Isend).
bool mpi_accepts_send(int dest, int tag, MPI_Comm comm);
// Bytes of (count, type) for the statistics (0 when MPI refuses the type).
std::uint64_t message_bytes(int count, MPI_Datatype type);

// Each returns the started transfer's slot (published, request watched; another thread
// may complete it at once, so the caller must not touch it), or why it could not start:
// Reason::mpi_error when MPI refused the nonblocking call, whose error code `rc` the
// blocking call returns (MPI has invoked the communicator's error handler already).
// `ready` selects MPI_Irsend.
struct Started {
  Slot* slot = nullptr;
  Reason reason = Reason::too_many;
  std::uint32_t token = 0;  // names the transfer in a pending status (status_codec.hpp)
  int rc = MPI_SUCCESS;
};
Started start_send(Call call, const void* buf, int count, MPI_Datatype type, int dest, int tag,
                   MPI_Comm comm, const Extent& e, bool ready);
Started start_recv(Call call, void* buf, int count, MPI_Datatype type, int source, int tag,
                   MPI_Comm comm, const Extent& e);
Started start_sendrecv_replace(void* buf, int count, MPI_Datatype type, int dest, int sendtag,
                               int source, int recvtag, MPI_Comm comm, const Extent& e);

// A blocking collective routed to liboverlap (collective_deferral.hpp): its receive side,
// if it has one (`recv`, from check_deferrable), prepared as a receive's: pages no-access,
// a landing area, which starts as a copy of the program's bytes with `snapshot` (an
// in-place collective's input) and is placed whole when liboverlap's request completes.
// `send_copy` (may be null) is the copy of its send side the caller took, the slot's from
// here. `start(ctx, landing, request)` starts liboverlap's collective with the landing
// area (nullptr without a receive side) and returns MPI's error code.
using CollectiveStart = int (*)(void* ctx, void* landing, MPI_Request* request);
Started start_collective(Call call, const Extent* recv, bool snapshot, BouncePool::Buffer send_copy,
                         CollectiveStart start, void* ctx);

}  // namespace overlap::intercept
