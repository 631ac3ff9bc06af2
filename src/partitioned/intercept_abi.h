/* What liboverlap's partitioned layer offers an interposition library that routes a
 * program's own MPI_Psend_init family to the OVX_P* calls (src/intercept/
 * partitioned_routes.cpp). Private: exported under liboverlap's OVERLAP_PRIVATE_1 node,
 * not installed, no compatibility promise beyond one build of the project. */
#ifndef OVERLAP_PARTITIONED_INTERCEPT_ABI_H
#define OVERLAP_PARTITIONED_INTERCEPT_ABI_H

#include <mpi.h>

#include "overlap/overlap.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Reports a refused call the way the OVX_P* calls report theirs: an MPI error code of the
 * request class (MPI_ERR_REQUEST where MPI allows) whose MPI_Error_string is
 * "liboverlap: <fn>: <why>", passed to the error handler of `comm` (MPI_COMM_WORLD's for
 * MPI_COMM_NULL). Returns the code. Call with MPI initialised, never from a callback. */
int ovx_private_partitioned_error(const char* fn, MPI_Comm comm, const char* why);

/* Whether the layer takes a partitioned request with this tag on this communicator: 0 where
 * it would refuse what MPI allows (an intercommunicator, a tag in the upper part of the tag
 * space it uses for its own messages). Both sides of a pair see the same tag and
 * communicator, so both decide alike and a pair is never split between the layer and
 * MPI's own partitioned communication; their datatypes may differ freely (the layer packs
 * what is not contiguous). */
int ovx_private_partitioned_routable(int tag, MPI_Comm comm);

/* OVX_Psend_init (send != 0) or OVX_Precv_init whose messages go on `wire` (the
 * interposition library's own duplicate of the program's communicator, so that no message
 * of the layer meets the program's own point-to-point) and whose errors go to the handler
 * of `errors` (the program's communicator). Ranks are those of both. */
int ovx_private_partitioned_init(int send, void* buf, int partitions, MPI_Count count,
                                 MPI_Datatype datatype, int peer, int tag, MPI_Comm wire,
                                 MPI_Comm errors, MPI_Info info, OVX_Prequest* request);

#ifdef __cplusplus
}
#endif

#endif /* OVERLAP_PARTITIONED_INTERCEPT_ABI_H */
