/* What every intercepted send or receive adds to, per call site and thread, and each
 * thread's cache of its recent sites: shared by the core (call_sites.hpp, which owns the
 * counters and sums them for the report) and the shim (which counts a call that goes
 * straight to MPI itself, straight_path.h). C, so both sides use the same layout and the
 * same functions.
 *
 * A thread is the only writer of its counters, so adding is a load and a store, no
 * locked instruction (a small message must not pay for the report); they are read and
 * written as relaxed atomics only so that the report may read while the thread writes. */
#pragma once

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The core's Call and Reason (call_sites.hpp) the shim needs; checked there. */
enum { OVX_CALL_SEND = 0, OVX_CALL_RECV = 4 };
/* Room for reasons to come: the core uses the first kReasonCount (call_sites.hpp). */
enum { OVX_REASON_BELOW_THRESHOLD = 1, OVX_REASON_COUNT = 24 };

struct ovx_site_counters {
  uint64_t calls, bytes, deferred, deferred_by_copy;
  uint64_t not_deferred[OVX_REASON_COUNT];
};

/* Two-way set-associative by site and call, so the sites of a loop's send and receive
 * (or the two halves of one MPI_Sendrecv) never evict each other; all zero is empty.
 * `owner` names the core's statistics object (never 0), so an entry left by one that is
 * gone never matches another. */
struct ovx_site_cache_entry {
  uint64_t owner;
  uintptr_t key;
  struct ovx_site_counters* counters;
};
#define OVX_SITE_SET_BITS 4
#define OVX_SITE_SETS (1 << OVX_SITE_SET_BITS)
struct ovx_site_cache {
  struct ovx_site_cache_entry sets[OVX_SITE_SETS][2];
};

/* Sites are return addresses, one per call in the program; the call only tells the two
 * halves of an MPI_Sendrecv apart. */
static inline uintptr_t ovx_site_key(int call, uintptr_t site) {
  return site ^ ((uintptr_t)call << 56);
}

/* A multiplicative hash: its top bits depend on every bit of the key, the call's too. */
static inline struct ovx_site_cache_entry* ovx_site_set(struct ovx_site_cache* cache,
                                                        uintptr_t key) {
  return cache->sets[(uint64_t)key * 0x9E3779B97F4A7C15ull >> (64 - OVX_SITE_SET_BITS)];
}

/* The counters cached for `key` under `owner`, else NULL. */
static inline struct ovx_site_counters* ovx_site_cached(struct ovx_site_cache* cache,
                                                        uint64_t owner, uintptr_t key) {
  const struct ovx_site_cache_entry* set = ovx_site_set(cache, key);
  if (set[0].owner == owner && set[0].key == key) return set[0].counters;
  if (set[1].owner == owner && set[1].key == key) return set[1].counters;
  return 0;
}

/* Caches `counters` for `key` under `owner`; the set's older entry goes. */
static inline void ovx_site_remember(struct ovx_site_cache* cache, uint64_t owner, uintptr_t key,
                                     struct ovx_site_counters* counters) {
  struct ovx_site_cache_entry* set = ovx_site_set(cache, key);
  set[1] = set[0];
  set[0].owner = owner;
  set[0].key = key;
  set[0].counters = counters;
}

static inline void ovx_counter_add(uint64_t* counter, uint64_t n) {
  __atomic_store_n(counter, __atomic_load_n(counter, __ATOMIC_RELAXED) + n, __ATOMIC_RELAXED);
}
static inline uint64_t ovx_counter_read(const uint64_t* counter) {
  return __atomic_load_n(counter, __ATOMIC_RELAXED);
}

static inline void ovx_count_call(struct ovx_site_counters* c, uint64_t bytes) {
  ovx_counter_add(&c->calls, 1);
  ovx_counter_add(&c->bytes, bytes);
}
/* A call that went to MPI's own function, and why. */
static inline void ovx_count_straight(struct ovx_site_counters* c, int reason) {
  ovx_counter_add(&c->not_deferred[reason], 1);
}

#ifdef __cplusplus
}
#endif
