/* A bounded set of address ranges that a signal handler, libc wrappers and several threads
 * may use at once: lock-free, no allocation (the shim records what the program set on its
 * memory and which mappings it made, move_gate.hpp). C with GCC's __atomic builtins, so
 * C++ tests can include it.
 * An entry is {lo, hi}: hi 0 while it is being written (readers of overlaps() count it as
 * overlapping, which errs on the safe side), {0, 1} when free again. */
#ifndef OVERLAP_INTERCEPT_RANGE_SET_H
#define OVERLAP_INTERCEPT_RANGE_SET_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct ovx_range {
  uintptr_t lo, hi;
};

struct ovx_range_set {
  struct ovx_range* entries; /* capacity entries, zeroed */
  int capacity;
  int used;       /* entries ever taken, at most capacity (free ones are reused first) */
  int overflowed; /* an add() found no room: the set misses a range */
};

/* Adds [lo, hi) (lo < hi). */
void ovx_ranges_add(struct ovx_range_set* set, uintptr_t lo, uintptr_t hi);
/* Takes [lo, hi) out of every entry: entries inside it are freed, others shrink or split
 * in two (an entry is counted as being written meanwhile). */
void ovx_ranges_subtract(struct ovx_range_set* set, uintptr_t lo, uintptr_t hi);
/* Frees the entries that overlap [lo, hi). */
void ovx_ranges_forget_overlapping(struct ovx_range_set* set, uintptr_t lo, uintptr_t hi);
/* 1 when an entry overlaps [lo, hi) or is being written. */
int ovx_ranges_overlap(const struct ovx_range_set* set, uintptr_t lo, uintptr_t hi);
/* 1 when an entry is exactly [lo, hi). */
int ovx_ranges_has(const struct ovx_range_set* set, uintptr_t lo, uintptr_t hi);

#ifdef __cplusplus
}
#endif

#endif /* OVERLAP_INTERCEPT_RANGE_SET_H */
