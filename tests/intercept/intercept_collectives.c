/* The program's own nonblocking collectives under overlap-run (issue 25, item 1): the nine
 * liboverlap has, routed to its task graphs, beside what stays MPI's own, in one valid
 * program a wrong router would break. Every rank prints a digest of everything it
 * received; check_intercept.py compares it with the plain run's and reads the report.
 *
 *   intercept-collectives SEED ITERATIONS [free-early]
 *
 * Per iteration (sizes drawn from SEED, the same on every rank):
 *  - datatypes that differ between ranks for the same data (a strided vector on some, plain
 *    MPI_INT on others, at the root and elsewhere): every rank must route alike;
 *  - in-place forms; a derived datatype freed right after the call; communicators made by
 *    MPI_Comm_dup, _split (routed) and _idup (MPI's own), one freed with collectives
 *    pending on it;
 *  - a user-defined operation (MPI's own), a blocking collective and point-to-point on the
 *    same communicator between the routed ones;
 *  - completion by MPI_Waitany, MPI_Testsome or MPI_Waitall over routed and ordinary
 *    requests together, and MPI_Request_get_status.
 * MPI_BOTTOM, a padded pair type against a derived type of it, MPI_Iallreduce_c beside
 * MPI_Iallreduce (MPI 4).
 * Once: an intercommunicator's MPI_Ibarrier and MPI_Igather (MPI's own). Values are integers (sums exact
 * in any order), so the digests match bit for bit whatever the reduction order. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "case_support.h"

static void user_sum(void* in, void* inout, int* len, MPI_Datatype* type) {
  (void)type;
  for (int i = 0; i < *len; i++) ((int*)inout)[i] += ((int*)in)[i];
}

/* n ints every `stride`-th of a buffer: one element of a vector type. */
static MPI_Datatype strided(int n, int stride) {
  MPI_Datatype t;
  MPI_Type_vector(n, 1, stride, MPI_INT, &t);
  MPI_Type_commit(&t);
  return t;
}

/* A block of m ints every 2nd, resized so that consecutive blocks follow each other. */
static MPI_Datatype strided_block(int m) {
  MPI_Datatype v, t;
  MPI_Type_vector(m, 1, 2, MPI_INT, &v);
  MPI_Type_create_resized(v, 0, (MPI_Aint)(2 * m * sizeof(int)), &t);
  MPI_Type_commit(&t);
  MPI_Type_free(&v);
  return t;
}

static void* zalloc(size_t n) {
  void* p = calloc(n ? n : 1, 1);
  if (p == NULL) fail("calloc", (long)n, 0);
  return p;
}

/* Completes reqs[0..n) the way iteration `it` says. */
static void complete_all(MPI_Request* reqs, int n, int it) {
  MPI_Status statuses[16]; /* (MPICH's header flags MPI_STATUSES_IGNORE to GCC) */
  if (n > 16) fail("more than 16 requests", n, 16);
  int left = 0;
  for (int i = 0; i < n; i++) left += reqs[i] != MPI_REQUEST_NULL;
  if (it % 3 == 0) {
    while (left > 0) {
      int index = MPI_UNDEFINED;
      MPI_Waitany(n, reqs, &index, MPI_STATUS_IGNORE);
      if (index == MPI_UNDEFINED) fail("Waitany: no active request", left, 0);
      left--;
    }
  } else if (it % 3 == 1) {
    int* indices = zalloc(sizeof(int) * (size_t)n);
    while (left > 0) {
      int out = 0;
      MPI_Testsome(n, reqs, &out, indices, statuses);
      if (out == MPI_UNDEFINED) fail("Testsome: no active request", left, 0);
      left -= out;
      compute(1);
    }
    free(indices);
  } else {
    int flag = 0;
    if (reqs[0] != MPI_REQUEST_NULL) {
      while (!flag) MPI_Request_get_status(reqs[0], &flag, MPI_STATUS_IGNORE);
    }
    MPI_Waitall(n, reqs, statuses);
  }
  for (int i = 0; i < n; i++)
    if (reqs[i] != MPI_REQUEST_NULL) fail("request not MPI_REQUEST_NULL after completion", i, 0);
}

static void iteration(int it, uint64_t seed, MPI_Op user_op) {
  uint64_t s = seed * 1000003u + (uint64_t)it;
  const int n = 1 + (int)(next_random(&s) % 3000);
  const int m = 1 + (int)(next_random(&s) % 500);
  const int root = (int)(next_random(&s) % (uint64_t)size);
  MPI_Request reqs[16];
  int k = 0;

  /* Iallreduce, sum of longs (in place on odd iterations), and MAXLOC on MPI_DOUBLE_INT */
  long* sum = zalloc(sizeof(long) * (size_t)n);
  long* sum_in = zalloc(sizeof(long) * (size_t)n);
  for (int i = 0; i < n; i++) sum_in[i] = sum[i] = (long)rank * 100000 + i;
  if (it % 2)
    MPI_Iallreduce(MPI_IN_PLACE, sum, n, MPI_LONG, MPI_SUM, MPI_COMM_WORLD, &reqs[k++]);
  else
    MPI_Iallreduce(sum_in, sum, n, MPI_LONG, MPI_SUM, MPI_COMM_WORLD, &reqs[k++]);
  struct { double v; int i; } loc_in = {(double)((rank * 7 + it) % size), rank}, loc_out;
  MPI_Iallreduce(&loc_in, &loc_out, 1, MPI_DOUBLE_INT, MPI_MAXLOC, MPI_COMM_WORLD, &reqs[k++]);

  /* a user-defined operation: MPI's own */
  int* u_in = zalloc(sizeof(int) * (size_t)n);
  int* u_out = zalloc(sizeof(int) * (size_t)n);
  for (int i = 0; i < n; i++) u_in[i] = rank + i;
  MPI_Iallreduce(u_in, u_out, n, MPI_INT, user_op, MPI_COMM_WORLD, &reqs[k++]);

  /* Ibcast: the root sends from every 2nd int, odd ranks receive into every 3rd, others
   * into n plain ints; the vector type is freed before the collective completes */
  int* bc = zalloc(sizeof(int) * 3 * (size_t)n);
  MPI_Datatype bc_type = MPI_DATATYPE_NULL;
  if (rank == root) {
    for (int i = 0; i < 2 * n; i++) bc[i] = i % 2 ? -1 : it * 1000 + i / 2;
    bc_type = strided(n, 2);
    MPI_Ibcast(bc, 1, bc_type, root, MPI_COMM_WORLD, &reqs[k++]);
  } else if (rank % 2) {
    bc_type = strided(n, 3);
    MPI_Ibcast(bc, 1, bc_type, root, MPI_COMM_WORLD, &reqs[k++]);
  } else {
    MPI_Ibcast(bc, n, MPI_INT, root, MPI_COMM_WORLD, &reqs[k++]);
  }
  if (bc_type != MPI_DATATYPE_NULL) MPI_Type_free(&bc_type);

  /* a blocking collective and point-to-point on the same communicator in between */
  int one = rank + 1, total = 0;
  MPI_Allreduce(&one, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (total != size * (size + 1) / 2) fail("blocking MPI_Allreduce between", total, 0);
  int ring_out[64], ring_in[64];
  for (int i = 0; i < 64; i++) ring_out[i] = rank * 64 + i + it;
  MPI_Irecv(ring_in, 64, MPI_INT, (rank + size - 1) % size, it, MPI_COMM_WORLD, &reqs[k++]);
  MPI_Isend(ring_out, 64, MPI_INT, (rank + 1) % size, it, MPI_COMM_WORLD, &reqs[k++]);

  /* Ialltoall: odd ranks receive each block into every 2nd int */
  int* a2a_out = zalloc(sizeof(int) * (size_t)(m * size));
  int* a2a_in = zalloc(sizeof(int) * (size_t)(2 * m * size));
  for (int i = 0; i < m * size; i++) a2a_out[i] = rank * 1000000 + i;
  if (rank % 2) {
    MPI_Datatype t = strided_block(m);
    MPI_Ialltoall(a2a_out, m, MPI_INT, a2a_in, 1, t, MPI_COMM_WORLD, &reqs[k++]);
    MPI_Type_free(&t);
  } else {
    MPI_Ialltoall(a2a_out, m, MPI_INT, a2a_in, m, MPI_INT, MPI_COMM_WORLD, &reqs[k++]);
  }

  /* Igather to the root (in place there on even iterations; strided blocks on odd ones)
   * and Iscatter from it */
  int* g_in = zalloc(sizeof(int) * (size_t)m);
  int* g_out = zalloc(sizeof(int) * (size_t)(2 * m * size));
  for (int i = 0; i < m; i++) g_in[i] = rank * 10000 + i + it;
  MPI_Datatype g_type = MPI_DATATYPE_NULL;
  if (rank == root && it % 2 == 0) {
    memcpy(g_out + (size_t)root * (size_t)m, g_in, sizeof(int) * (size_t)m);
    MPI_Igather(MPI_IN_PLACE, m, MPI_INT, g_out, m, MPI_INT, root, MPI_COMM_WORLD, &reqs[k++]);
  } else if (rank == root) {
    g_type = strided_block(m);
    MPI_Igather(g_in, m, MPI_INT, g_out, 1, g_type, root, MPI_COMM_WORLD, &reqs[k++]);
  } else {
    MPI_Igather(g_in, m, MPI_INT, NULL, 0, MPI_INT, root, MPI_COMM_WORLD, &reqs[k++]);
  }
  int* sc_in = zalloc(sizeof(int) * (size_t)(2 * m * size));
  int* sc_out = zalloc(sizeof(int) * (size_t)m);
  for (int i = 0; i < 2 * m * size; i++) sc_in[i] = i * 3 + it;
  if (rank == root && g_type != MPI_DATATYPE_NULL)
    MPI_Iscatter(sc_in, 1, g_type, sc_out, m, MPI_INT, root, MPI_COMM_WORLD, &reqs[k++]);
  else if (rank == root)
    MPI_Iscatter(sc_in, m, MPI_INT, sc_out, m, MPI_INT, root, MPI_COMM_WORLD, &reqs[k++]);
  else
    MPI_Iscatter(NULL, 0, MPI_INT, sc_out, m, MPI_INT, root, MPI_COMM_WORLD, &reqs[k++]);
  if (g_type != MPI_DATATYPE_NULL) MPI_Type_free(&g_type);

  complete_all(reqs, k, it);
  mix(sum, sizeof(long) * (size_t)n);
  for (int i = 0; i < n; i++)
    if (sum[i] != (long)100000 * size * (size - 1) / 2 + (long)size * i)
      fail("Iallreduce MPI_SUM", i, sum[i]);
  mix(&loc_out.v, sizeof loc_out.v);
  mix(&loc_out.i, sizeof loc_out.i);
  mix(u_out, sizeof(int) * (size_t)n);
  mix(bc, sizeof(int) * 3 * (size_t)n);
  mix(ring_in, sizeof ring_in);
  mix(a2a_in, sizeof(int) * (size_t)(2 * m * size));
  if (rank == root) mix(g_out, sizeof(int) * (size_t)(2 * m * size));
  mix(sc_out, sizeof(int) * (size_t)m);
  free(sum), free(sum_in), free(u_in), free(u_out), free(bc), free(a2a_out), free(a2a_in);
  free(g_in), free(g_out), free(sc_in), free(sc_out);
}

/* The rest of the nine on a communicator of each origin: MPI_COMM_WORLD; a duplicate
 * (MPI_Comm_dup) freed while they are pending where the MPI survives that; one half of
 * MPI_Comm_split; one made by MPI_Comm_idup, which has no hidden duplicate (MPI's own). */
enum origin { WORLD, DUP, SPLIT, IDUP };
static int free_early;

static void rest_of_nine(int it, uint64_t seed, enum origin origin) {
  MPI_Comm dup = MPI_COMM_WORLD;
  if (origin == DUP) MPI_Comm_dup(MPI_COMM_WORLD, &dup);
  if (origin == SPLIT) MPI_Comm_split(MPI_COMM_WORLD, rank % 2, size - rank, &dup);
  if (origin == IDUP) {
    MPI_Request r;
    MPI_Comm_idup(MPI_COMM_WORLD, &dup, &r);
    MPI_Wait(&r, MPI_STATUS_IGNORE);
  }
  const int world_rank = rank, world_size = size;
  MPI_Comm_rank(dup, &rank);
  MPI_Comm_size(dup, &size);
  uint64_t s = seed * 7919u + (uint64_t)it;
  const int m = 1 + (int)(next_random(&s) % 800);
  const int root = (int)(next_random(&s) % (uint64_t)size);
  MPI_Request reqs[8];
  int k = 0;
  int* ag = zalloc(sizeof(int) * (size_t)(m * size));
  for (int i = 0; i < m; i++) ag[(size_t)rank * (size_t)m + (size_t)i] = rank * 31 + i + it;
  MPI_Iallgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, ag, m, MPI_INT, dup, &reqs[k++]);
  int* rs_in = zalloc(sizeof(int) * (size_t)(m * size));
  int* rs_out = zalloc(sizeof(int) * (size_t)m);
  for (int i = 0; i < m * size; i++) rs_in[i] = (rank * 13 + i) % 1000;
  MPI_Ireduce_scatter_block(rs_in, rs_out, m, MPI_INT, MPI_MAX, dup, &reqs[k++]);
  unsigned* x_in = zalloc(sizeof(unsigned) * (size_t)m);
  unsigned* x_out = zalloc(sizeof(unsigned) * (size_t)m);
  for (int i = 0; i < m; i++) x_in[i] = (unsigned)(rank * 2654435761u + (unsigned)i);
  MPI_Ireduce(x_in, x_out, m, MPI_UNSIGNED, MPI_BXOR, root, dup, &reqs[k++]);
  MPI_Ibarrier(dup, &reqs[k++]);
  /* MPI allows freeing a communicator with operations pending (they complete); Open MPI
   * 4.1's libnbc crashes on it in the plain run, so the driver asks for it where the
   * plain run survives it (free_early). */
  if (origin == DUP && free_early) MPI_Comm_free(&dup);
  compute(2);
  complete_all(reqs, k, it + 1);
  if (origin != WORLD && dup != MPI_COMM_NULL) MPI_Comm_free(&dup);
  mix(ag, sizeof(int) * (size_t)(m * size));
  mix(rs_out, sizeof(int) * (size_t)m);
  if (rank == root) mix(x_out, sizeof(unsigned) * (size_t)m);
  free(ag), free(rs_in), free(rs_out), free(x_in), free(x_out);
  rank = world_rank, size = world_size;
}

/* Forms that look alike to a wrong router but are not: MPI_BOTTOM with an absolute-address
 * datatype (odd ranks) against a plain buffer; MPI_DOUBLE_INT (padded: 12 data bytes in 16)
 * at the root against a contiguous type of it elsewhere; with MPI 4, MPI_Iallreduce_c on
 * rank 0 against MPI_Iallreduce on the others. */
static void odd_forms(int it, uint64_t seed) {
  uint64_t s = seed * 104729u + (uint64_t)it;
  const int n = 1 + (int)(next_random(&s) % 1000);
  const int root = (int)(next_random(&s) % (uint64_t)size);
  MPI_Request reqs[3];
  int* at = zalloc(sizeof(int) * (size_t)n);
  if (rank == root)
    for (int i = 0; i < n; i++) at[i] = it * 7 + i;
  if (rank % 2) {
    MPI_Aint where;
    MPI_Get_address(at, &where);
    int len = n;
    MPI_Datatype absolute;
    MPI_Type_create_hindexed(1, &len, &where, MPI_INT, &absolute);
    MPI_Type_commit(&absolute);
    MPI_Ibcast(MPI_BOTTOM, 1, absolute, root, MPI_COMM_WORLD, &reqs[0]);
    MPI_Type_free(&absolute);
  } else {
    MPI_Ibcast(at, n, MPI_INT, root, MPI_COMM_WORLD, &reqs[0]);
  }
  struct pair { double v; int i; };
  struct pair* pairs = zalloc(sizeof(struct pair) * (size_t)n);
  if (rank == root)
    for (int i = 0; i < n; i++) pairs[i].v = i * 0.5 + it, pairs[i].i = -i;
  if (rank == root) {
    MPI_Ibcast(pairs, n, MPI_DOUBLE_INT, root, MPI_COMM_WORLD, &reqs[1]);
  } else {
    MPI_Datatype many;
    MPI_Type_contiguous(n, MPI_DOUBLE_INT, &many);
    MPI_Type_commit(&many);
    MPI_Ibcast(pairs, 1, many, root, MPI_COMM_WORLD, &reqs[1]);
    MPI_Type_free(&many);
  }
  long sum_in = rank + it, sum = 0;
#if MPI_VERSION >= 4
  if (rank == 0)
    MPI_Iallreduce_c(&sum_in, &sum, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD, &reqs[2]);
  else
#endif
    MPI_Iallreduce(&sum_in, &sum, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD, &reqs[2]);
  complete_all(reqs, 3, it);
  for (int i = 0; i < n; i++)
    if (at[i] != it * 7 + i) fail("MPI_Ibcast at MPI_BOTTOM", i, at[i]);
  for (int i = 0; i < n; i++) {
    if (pairs[i].v != i * 0.5 + it || pairs[i].i != -i) fail("MPI_Ibcast of MPI_DOUBLE_INT", i, 0);
    mix(&pairs[i].v, sizeof pairs[i].v);
    mix(&pairs[i].i, sizeof pairs[i].i);
  }
  if (sum != (long)size * (size - 1) / 2 + (long)size * it) fail("MPI_Iallreduce(_c)", sum, 0);
  mix(at, sizeof(int) * (size_t)n);
  mix(&sum, sizeof sum);
  free(at), free(pairs);
}

/* An intercommunicator's MPI_Ibarrier and MPI_Igather: liboverlap's collectives are for
 * intracommunicators, so these stay MPI's own. */
static void intercommunicator(void) {
  if (size < 2) return;
  MPI_Comm half, inter;
  MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
  MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, rank % 2 ? 0 : 1, 77, &inter);
  MPI_Request r;
  MPI_Ibarrier(inter, &r);
  MPI_Wait(&r, MPI_STATUS_IGNORE);
  /* MPI_Igather from the odd ranks to world rank 0: the arguments MPI ignores (the odd
   * ranks' receive side, the even ranks' send side, everything at MPI_PROC_NULL) carry a
   * handle that is no datatype at all; nothing may read them (overlap-run's report did). */
  MPI_Datatype junk;
  memset(&junk, 0, sizeof junk);
  int remote = 0, mine = rank, got[64] = {0};
  MPI_Comm_remote_size(inter, &remote);
  const int root = rank % 2 ? 0 : rank == 0 ? MPI_ROOT : MPI_PROC_NULL;
  if (rank % 2)
    MPI_Igather(&mine, 1, MPI_INT, NULL, 0, junk, root, inter, &r);
  else if (rank == 0)
    MPI_Igather(NULL, 0, junk, got, 1, MPI_INT, root, inter, &r);
  else
    MPI_Igather(NULL, 0, junk, NULL, 0, junk, root, inter, &r);
  MPI_Wait(&r, MPI_STATUS_IGNORE);
  for (int i = 0; rank == 0 && i < remote && i < 64; ++i)
    if (got[i] != 2 * i + 1) fail("MPI_Igather on an intercommunicator", got[i], 2 * i + 1);
  MPI_Comm_free(&inter);
  MPI_Comm_free(&half);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (argc < 3) {
    if (rank == 0) fprintf(stderr, "usage: intercept-collectives SEED ITERATIONS [free-early]\n");
    MPI_Finalize();
    return 2;
  }
  const uint64_t seed = strtoull(argv[1], NULL, 10);
  const int iterations = atoi(argv[2]);
  free_early = argc > 3 && strcmp(argv[3], "free-early") == 0;
  MPI_Op user_op;
  MPI_Op_create(user_sum, 1, &user_op);
  for (int it = 0; it < iterations; it++) {
    iteration(it, seed, user_op);
    for (int origin = WORLD; origin <= IDUP; origin++) rest_of_nine(it, seed, origin);
    odd_forms(it, seed);
  }
  intercommunicator();
  MPI_Op_free(&user_op);
  printf("rank %d digest %016llx\n", rank, (unsigned long long)digest);
  MPI_Finalize();
  return 0;
}
