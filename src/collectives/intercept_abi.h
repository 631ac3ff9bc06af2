/* What liboverlap's collectives offer an interposition library that routes a program's own
 * nonblocking collectives (MPI_Ibcast, MPI_Iallreduce...) to them (src/intercept/calls/
 * collective_routes.cpp). Private: exported under liboverlap's OVERLAP_PRIVATE_1 node, not
 * installed, no compatibility promise beyond one build of the project.
 *
 * The ovx_private_i* functions are the OVX_I* calls under names an interposition library
 * does not define itself: one that also interposes OVX_I* (for programs that call them)
 * reaches liboverlap's own code through these without passing its own wrappers again. */
#ifndef OVERLAP_COLLECTIVES_INTERCEPT_ABI_H
#define OVERLAP_COLLECTIVES_INTERCEPT_ABI_H

#include <mpi.h>

#include "overlap/overlap.h"

#ifdef __cplusplus
extern "C" {
#endif

/* NULL when liboverlap's reductions take `op` on `type` (a predefined operation on a
 * predefined datatype it supports), else why not, in words (valid until the calling
 * thread's next call). The answer depends on nothing but the two handles, and MPI requires
 * every rank of a reduction to pass the same op and datatype, so every rank answers alike. */
const char* ovx_private_reduction_refusal(MPI_Op op, MPI_Datatype type);

/* Gives liboverlap `dup`, a duplicate of `comm` the caller made where every rank was
 * present (MPI_Init), as the communicator its collectives on `comm` run on, instead of one
 * it would make with MPI_Comm_idup at the first collective (docs/overlap-run.md says why).
 * liboverlap frees it. MPI_SUCCESS, or MPI_ERR_COMM when `comm` has a duplicate already. */
int ovx_private_adopt_duplicate(MPI_Comm comm, MPI_Comm dup);

/* Takes back what ovx_private_adopt_duplicate gave, when not every rank of `comm` could
 * make its duplicate: liboverlap forgets `comm`'s context and frees the duplicate. */
void ovx_private_drop_duplicate(MPI_Comm comm);

/* Says, inside MPI_Init on every rank, whether the caller makes the duplicates of the
 * program's communicators inside the calls that make them (overlap-run routing
 * collectives). When it does not (0), liboverlap makes them itself where it builds them so
 * (Open MPI: src/collectives/creation_duplicates.cpp), starting with MPI_COMM_WORLD's
 * right here (collective over MPI_COMM_WORLD); with MPICH this does nothing. */
void ovx_private_duplicates_at_creation(int caller_makes_them);

/* OVX_Calibrate without calling an error handler: MPI_SUCCESS, or an error class with why
 * in `why` (at most `len` bytes, terminated). Collective over MPI_COMM_WORLD. */
int ovx_private_calibrate(char* why, int len);

extern __typeof__(OVX_Ibarrier) ovx_private_ibarrier;
extern __typeof__(OVX_Ibcast) ovx_private_ibcast;
extern __typeof__(OVX_Ireduce) ovx_private_ireduce;
extern __typeof__(OVX_Iallreduce) ovx_private_iallreduce;
extern __typeof__(OVX_Iallgather) ovx_private_iallgather;
extern __typeof__(OVX_Ialltoall) ovx_private_ialltoall;
extern __typeof__(OVX_Igather) ovx_private_igather;
extern __typeof__(OVX_Iscatter) ovx_private_iscatter;
extern __typeof__(OVX_Ireduce_scatter_block) ovx_private_ireduce_scatter_block;

#ifdef __cplusplus
}
#endif

#endif /* OVERLAP_COLLECTIVES_INTERCEPT_ABI_H */
