/* liboverlap's private ABI: NOT part of its API, not installed, no compatibility promise
 * beyond one build of the project. It lets other shared objects of the project (the PMPI
 * interception library liboverlap-intercept.so, issue 11) share the process's one progress
 * engine with liboverlap.so instead of starting a second one. liboverlap.so exports these
 * symbols under the version node OVERLAP_PRIVATE_1 (liboverlap.map); everything here is a
 * thin C wrapper over progress/engine_runtime.hpp and progress/scheduler.hpp.
 */
#ifndef OVERLAP_PROGRESS_PRIVATE_ABI_H
#define OVERLAP_PROGRESS_PRIVATE_ABI_H

#include <mpi.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#define OVX_PRIVATE_ABI_VERSION 5

/* The ABI version this liboverlap.so implements (compare with OVX_PRIVATE_ABI_VERSION). */
int ovx_private_abi_version(void);

/* Starts the engine or joins it, like OVX_Init: `policy` is an OVX_Progress value
 * (0 = OVERLAP_PROGRESS, else shared). Returns MPI_SUCCESS, or an MPI error code with one
 * line in `error` (when not NULL, truncated to `error_size`). Each success is one use.
 * From then on the 'caller' policy's note on stderr about MPICH's rescue thread is not
 * printed: the interposition library reports how transfers progressed. */
int ovx_private_acquire(int policy, char* error, size_t error_size);
/* Ends one use (the engine stops once it has no user and nothing in flight). */
void ovx_private_release(void);

/* One progress pass from the calling thread; returns the work it did (0 when another
 * thread is doing the pass). */
int ovx_private_progress(void);
/* The same pass from inside the program's own MPI call, right before MPI's function runs:
 * a hold gets no probe there (that call progresses MPI as it would without the hold). */
int ovx_private_progress_in_call(void);

/* Hands a request the caller posted (e.g. an MPI_Isend posted on the application's thread
 * to keep MPI's matching order) to the engine, which tests it in its passes, in the same
 * MPI_Testsome as its own operations, and calls done(arg, status) once it completed. From
 * then on only the engine may test or free the request. `done` runs inside a pass, on
 * whichever thread makes it: it must not block; it may post and watch more requests.
 * Needs a use (ovx_private_acquire). Returns MPI_SUCCESS or MPI_ERR_OTHER. */
int ovx_private_watch(MPI_Request request, void (*done)(void* arg, const MPI_Status* status),
                      void* arg);

/* A thread that cannot make passes itself (a signal handler) is blocked until a watched
 * request completes: on != 0 before it waits, on == 0 after. While any such wait is open,
 * the shared policy's thread passes without pausing, as the blocking MPI call would poll.
 * Async-signal-safe (an atomic and a futex wake). Needs a use (ovx_private_acquire). */
void ovx_private_hurry(int on);

/* A hold on the engine (OVX_Progress_begin/_end without their error handling): while one
 * is open the engine passes and each pass (but ovx_private_progress_in_call's) pokes
 * MPI's own progress, for requests the caller's program posted and completes itself
 * (docs/liboverlap.md, "Point-to-point progress"). on != 0 opens one, on == 0 closes
 * one. Returns MPI_SUCCESS, or MPI_ERR_OTHER when no engine runs or (closing) none is
 * open. Needs a use (ovx_private_acquire). */
int ovx_private_hold(int on);

/* liboverlap's part of MPI_Finalize (stops the engine for good); call it right before
 * PMPI_Finalize from a library whose MPI_Finalize does not reach liboverlap's. */
void ovx_private_before_finalize(void);

/* Collectives and watched requests in flight. */
size_t ovx_private_in_flight(void);

#ifdef __cplusplus
}
#endif

#endif /* OVERLAP_PROGRESS_PRIVATE_ABI_H */
