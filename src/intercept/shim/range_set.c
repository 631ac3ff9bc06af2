#include "intercept/shim/range_set.h"

#define FREE_HI 1

static uintptr_t load(const uintptr_t* p) { return __atomic_load_n(p, __ATOMIC_ACQUIRE); }
static void store(uintptr_t* p, uintptr_t v) { __atomic_store_n(p, v, __ATOMIC_RELEASE); }
static int swap_if(uintptr_t* p, uintptr_t expected, uintptr_t desired) {
  return __atomic_compare_exchange_n(p, &expected, desired, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE);
}

static int used(const struct ovx_range_set* set) {
  return __atomic_load_n(&set->used, __ATOMIC_ACQUIRE);
}

void ovx_ranges_add(struct ovx_range_set* set, uintptr_t lo, uintptr_t hi) {
  struct ovx_range* e = 0;
  const int n = used(set);
  for (int i = 0; i < n && e == 0; i++) {
    if (swap_if(&set->entries[i].hi, FREE_HI, 0)) e = &set->entries[i];
  }
  if (e == 0) {
    /* A new entry, counted only while there is room (the count never runs past it). */
    int i = __atomic_load_n(&set->used, __ATOMIC_ACQUIRE);
    do {
      if (i >= set->capacity) {
        __atomic_store_n(&set->overflowed, 1, __ATOMIC_RELEASE);
        return;
      }
    } while (!__atomic_compare_exchange_n(&set->used, &i, i + 1, 0, __ATOMIC_ACQ_REL,
                                          __ATOMIC_ACQUIRE));
    e = &set->entries[i]; /* hi is 0: being written */
  }
  store(&e->lo, lo);
  store(&e->hi, hi);
}

/* Takes entry `e` if it overlaps [lo, hi): then 1, its range in elo and ehi and its hi 0
 * (being written) until the caller stores a new one. Only add() refills an entry, and only
 * a free one: once hi is swapped to 0 here, the entry is ours. It may have been freed and
 * refilled between the two loads, so lo is checked again. */
static int claim(struct ovx_range* e, uintptr_t lo, uintptr_t hi, uintptr_t* elo, uintptr_t* ehi) {
  *ehi = load(&e->hi);
  *elo = load(&e->lo);
  if (*ehi <= FREE_HI || hi <= *elo || *ehi <= lo || !swap_if(&e->hi, *ehi, 0)) return 0;
  if (load(&e->lo) == *elo) return 1;
  store(&e->hi, *ehi);
  return 0;
}

static void release(struct ovx_range* e) {
  store(&e->lo, 0);
  store(&e->hi, FREE_HI);
}

void ovx_ranges_forget_overlapping(struct ovx_range_set* set, uintptr_t lo, uintptr_t hi) {
  const int n = used(set);
  uintptr_t elo = 0, ehi = 0;
  for (int i = 0; i < n; i++) {
    if (claim(&set->entries[i], lo, hi, &elo, &ehi)) release(&set->entries[i]);
  }
}

void ovx_ranges_subtract(struct ovx_range_set* set, uintptr_t lo, uintptr_t hi) {
  const int n = used(set);
  uintptr_t elo = 0, ehi = 0;
  for (int i = 0; i < n; i++) {
    if (!claim(&set->entries[i], lo, hi, &elo, &ehi)) continue;
    /* What is left: [elo, lo) and [hi, ehi). The first stays in this entry. */
    if (hi < ehi) ovx_ranges_add(set, hi, ehi);
    if (elo < lo) {
      store(&set->entries[i].hi, lo);
    } else {
      release(&set->entries[i]);
    }
  }
}

int ovx_ranges_overlap(const struct ovx_range_set* set, uintptr_t lo, uintptr_t hi) {
  const int n = used(set);
  for (int i = 0; i < n; i++) {
    const uintptr_t ehi = load(&set->entries[i].hi);
    if (ehi == 0) return 1;
    if (ehi == FREE_HI) continue;
    if (load(&set->entries[i].lo) < hi && lo < ehi) return 1;
  }
  return 0;
}

int ovx_ranges_has(const struct ovx_range_set* set, uintptr_t lo, uintptr_t hi) {
  const int n = used(set);
  for (int i = 0; i < n; i++) {
    if (load(&set->entries[i].hi) == hi && load(&set->entries[i].lo) == lo) return 1;
  }
  return 0;
}
