// Whether a collective goes to liboverlap or stays MPI's own (collective_routes.cpp): each
// verdict reads only what every rank of the collective passes alike, and counts the call
// for the report under `call`. Shared by the routers of the nonblocking collectives
// (collective_routes.cpp) and of the blocking ones (blocking_routes.cpp).
#pragma once

#include <mpi.h>

#include "intercept/calls/collective_routes.hpp"

namespace overlap::intercept {

struct CollectiveSiteCounts;  // the record of the call's site (collective_routes.cpp)

struct Verdict {
  bool routed = false;
  OwnReason why = OwnReason::not_active;
  const char* note = nullptr;            // OwnReason::operation: liboverlap's words
  CollectiveSiteCounts* site = nullptr;  // where the call was counted
};

// `request` is the program's request argument (a blocking call passes any non-null one).
Verdict bcast_verdict(Collective call, MPI_Count count, MPI_Datatype type, int root, MPI_Comm comm,
                      MPI_Request* request);
Verdict reduce_verdict(Collective call, MPI_Count count, MPI_Datatype type, MPI_Op op, int root,
                       MPI_Comm comm, MPI_Request* request);
Verdict allreduce_verdict(Collective call, MPI_Count count, MPI_Datatype type, MPI_Op op,
                          MPI_Comm comm, MPI_Request* request);
Verdict reduce_scatter_block_verdict(Collective call, MPI_Count count, MPI_Datatype type, MPI_Op op,
                                     MPI_Comm comm, MPI_Request* request);
// Gather and scatter: the root describes a block with the side it has every block of (its
// other side may be in place), the others with their one block.
Verdict rooted_verdict(Collective call, MPI_Count root_count, MPI_Datatype root_type,
                       MPI_Count count, MPI_Datatype type, int root, MPI_Comm comm,
                       MPI_Request* request);
Verdict all_to_all_verdict(Collective call, MPI_Count recvcount, MPI_Datatype recvtype,
                           MPI_Comm comm, MPI_Request* request);

int size_of(MPI_Comm comm);
// Whether this rank is `root` of `comm`; -1 when root is not a rank of it (MPI reports).
int is_root(MPI_Comm comm, int root);
// An MPI_Count form's count for liboverlap's int one, once the verdict routed the call:
// a count that decides fits (the verdict's bytes are at most INT_MAX; a datatype of no
// bytes moves nothing whatever the count), and one MPI ignores on this rank (significant
// only at the root, or beside MPI_IN_PLACE) may be anything: 0 then. Never decides the
// route itself, which must be the same on every rank.
int narrowed(MPI_Count count);

// Fills table.route for the blocking collectives (blocking_routes.cpp).
void add_blocking_routes(ovx_core& t);

}  // namespace overlap::intercept
