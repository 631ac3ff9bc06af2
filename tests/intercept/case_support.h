/* What the overlap-run test programs share (intercept_cases.c, intercept_conformance.c):
 * the rank, a digest of everything received that the driver compares between the plain
 * and the intercepted run, failures that end the job with a line naming what differed,
 * the same random sequence on every rank, byte patterns, and computation to overlap. */
#ifndef OVERLAP_TESTS_INTERCEPT_CASE_SUPPORT_H
#define OVERLAP_TESTS_INTERCEPT_CASE_SUPPORT_H

#include <mpi.h>
#include <stdint.h>
#include <stdio.h>

static int rank, size;
static int threaded; /* the global area is one: threads use the heap instead */
static uint64_t digest = 1469598103934665603ull;

static inline void fail(const char* what, long a, long b) {
  fprintf(stderr, "FAIL rank %d: %s (%ld, %ld)\n", rank, what, a, b);
  fflush(stderr);
  MPI_Abort(MPI_COMM_WORLD, 1);
}

static inline void mix(const void* p, size_t n) {
  if (threaded) return; /* interleaving differs between runs; the byte checks are the test */
  const unsigned char* c = p;
  for (size_t i = 0; i < n; i++) digest = (digest ^ c[i]) * 1099511628211ull;
}

/* xorshift64*: every rank draws the same sequence from the same seed. */
static inline uint64_t next_random(uint64_t* s) {
  *s ^= *s >> 12;
  *s ^= *s << 25;
  *s ^= *s >> 27;
  return *s * 2685821657736338717ull;
}

static inline unsigned char pattern(uint64_t seed, int kase, size_t i) {
  return (unsigned char)((seed * 31 + (uint64_t)kase * 131 + i * 7 + (i >> 8)) & 0xff);
}

static inline void fill(unsigned char* p, size_t n, uint64_t seed, int kase) {
  for (size_t i = 0; i < n; i++) p[i] = pattern(seed, kase, i);
}

static inline void check(const unsigned char* p, size_t n, uint64_t seed, int kase,
                         const char* what) {
  for (size_t i = 0; i < n; i++) {
    if (p[i] != pattern(seed, kase, i)) {
      fprintf(stderr, "FAIL rank %d: %s case %d byte %zu of %zu: %d, expected %d\n", rank, what,
              kase, i, n, p[i], pattern(seed, kase, i));
      MPI_Abort(MPI_COMM_WORLD, 1);
    }
  }
  mix(p, n);
}

static volatile double sink;
static inline void compute(int units) {
  double x = 1;
  for (int i = 0; i < units * 20000; i++) x = x * 1.0000001 + 1e-9;
  sink = x;
}

#endif
