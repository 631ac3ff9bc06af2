/* A blocking send or receive smaller than --min-size goes straight to MPI's own function.
 * Most calls of most programs are such calls, so they must cost next to nothing, also
 * with cold caches (a blocking call usually follows a computation that evicted the
 * layer). Once the core is running with a progress thread (so no call owes a progress
 * pass), it publishes here what the decision needs, and the shim serves such an
 * MPI_Send/MPI_Recv itself: no call into the core, whose code and data would be cold.
 * The core decides every other call, and every call whose site the calling thread has
 * not met yet (it registers the site's counters in the thread's cache). docs/overlap-run.md,
 * "What each call may defer". Written by the core before `on` is set, read-only after. */
#pragma once

#include <mpi.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The sizes of MPI's predefined datatypes, asked once after MPI_Init: a predefined type
 * can never be freed or change (a derived type's handle can come back with another size,
 * so it is asked each time). Open addressing, at most half full. */
struct ovx_type_size {
  MPI_Datatype type;
  int size;
  int used;
  int dense; /* its extent and true extent are its size, its true lower bound 0 */
};
#define OVX_TYPE_SLOTS 128

struct ovx_straight {
  int on;         /* the shim may serve calls below min_bytes (release/acquire) */
  int send, recv; /* MPI_Send and MPI_Recv are deferred when large enough (--defer) */
  uint64_t min_bytes;
  uint64_t sites_owner; /* the core's statistics object (site_counters.h) */
  struct ovx_type_size sizes[OVX_TYPE_SLOTS];
};

static inline unsigned ovx_type_slot(MPI_Datatype type) {
  /* An int handle (MPICH) or the address of a static object (Open MPI). */
  const uintptr_t h = (uintptr_t)type;
  return (unsigned)((h ^ (h >> 4) ^ (h >> 9) ^ (h >> 16)) % OVX_TYPE_SLOTS);
}

/* The size of a predefined type learnt, else -1 (ask MPI). */
static inline int ovx_type_size_of(const struct ovx_straight* s, MPI_Datatype type) {
  for (unsigned i = ovx_type_slot(type);; i = (i + 1) % OVX_TYPE_SLOTS) {
    const struct ovx_type_size* e = &s->sizes[i];
    if (!e->used) return -1;
    if (e->type == type) return e->size;
  }
}

/* The size of a predefined type whose elements lie back to back (`count` of them span
 * count * size bytes from the buffer), else -1. */
static inline int ovx_type_dense_size_of(const struct ovx_straight* s, MPI_Datatype type) {
  for (unsigned i = ovx_type_slot(type);; i = (i + 1) % OVX_TYPE_SLOTS) {
    const struct ovx_type_size* e = &s->sizes[i];
    if (!e->used) return -1;
    if (e->type == type) return e->dense ? e->size : -1;
  }
}

/* Records a predefined type's size (at most OVX_TYPE_SLOTS / 2 of them). */
static inline void ovx_type_size_add(struct ovx_straight* s, MPI_Datatype type, int size,
                                     int dense) {
  for (unsigned i = ovx_type_slot(type);; i = (i + 1) % OVX_TYPE_SLOTS) {
    struct ovx_type_size* e = &s->sizes[i];
    if (e->used && e->type == type) return; /* an alias (MPI_LONG_LONG, MPI_LONG_LONG_INT) */
    if (!e->used) {
      e->type = type;
      e->size = size;
      e->dense = dense;
      e->used = 1;
      return;
    }
  }
}

/* The message's bytes as the core counts them: 0 for no elements; -1 when the type is
 * not a predefined one learnt. */
static inline int64_t ovx_straight_bytes(const struct ovx_straight* s, int count,
                                         MPI_Datatype type) {
  const int size = ovx_type_size_of(s, type);
  if (size < 0) return -1;
  return count > 0 ? (int64_t)count * size : 0;
}

#ifdef __cplusplus
}
#endif
