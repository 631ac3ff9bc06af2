/* The program's blocking collectives under overlap-run (issue 25, item 3): routed to
 * liboverlap's task graphs alike on every rank, then deferred where a rank's buffers
 * allow it (the call returns at once, the result's pages closed until it is placed) and
 * waited for where they do not. Every rank checks every result against the value it
 * computes itself and prints a digest of them; check_intercept.py compares the digest with
 * the plain run's and reads the report.
 *
 *   intercept-blocking SEED ITERATIONS
 *
 * Per iteration (sizes and root drawn from SEED, the same on every rank), the eight calls
 * on page-aligned buffers (deferrable), all started before any result is read:
 *  - in-place forms in turn; a strided receive type with holes that must keep their values;
 *    blocks of pages and glibc blocks of their own;
 *  - each send buffer overwritten right after the call returned (a deferred send side is a
 *    copy), the root's broadcast buffer too;
 *  - results read in reverse order after some computation (the first touch waits);
 *  - one result sent on to a neighbour before the program touched it (the fence of
 *    MPI_Sendrecv completes it first);
 *  - a small MPI_Allreduce whose result is on rank 0's stack (rank 0 waits, the others
 *    defer: every rank still runs liboverlap's collective);
 *  - MPI_Allreduce on a duplicate with MPI_ERRORS_RETURN (not deferred), and on one freed
 *    while its deferred collective is pending.
 * After the last iteration one MPI_Allreduce is left untouched until after MPI_Finalize,
 * which must have completed and placed it. */
#include <mpi.h>
#include <fcntl.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "case_support.h"

static size_t page_size(void) { return 4096; }

/* n bytes on pages of their own (mmap: page-aligned at both ends once rounded). */
static void* pages(size_t n) {
  size_t len = (n + page_size() - 1) / page_size() * page_size();
  if (len == 0) len = page_size();
  void* p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) fail("mmap", (long)n, 0);
  return p;
}
static void unpages(void* p, size_t n) {
  size_t len = (n + page_size() - 1) / page_size() * page_size();
  munmap(p, len ? len : page_size());
}

static void expect_long(const long* got, long want, int i, const char* what) {
  if (*got != want) {
    fprintf(stderr, "FAIL rank %d: %s [%d]: %ld, expected %ld\n", rank, what, i, *got, want);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
}

struct iteration {
  int it, n, m, root;
  long *ar_in, *ar_out;     /* allreduce: n longs */
  int *bc;                  /* bcast: 2n ints (odd ranks receive every 2nd) */
  int *rd_in, *rd_out;      /* reduce (MAX) to root: n ints */
  long *rs_in, *rs_out;     /* reduce_scatter_block: m longs per rank */
  int *ga_in, *ga_out;      /* gather to root: m ints per rank */
  int *sc_in, *sc_out;      /* scatter from root: m ints per rank */
  long *ag;                 /* allgather: m longs per rank (in place on odd iterations) */
  long *ag_in;
  int *aa_in, *aa_out;      /* alltoall: m ints per pair */
};

static long ar_value(int r, int i, int it) { return (long)r * 1000 + i + it; }
static long ar_sum(int i, int it) {
  return 1000L * size * (size - 1) / 2 + (long)size * (i + it);
}
static int bc_value(int i, int it) { return it * 7 + i * 3; }
static int rd_value(int r, int i, int it) { return (r * 37 + i * 11 + it) % 1009; }
static long rs_value(int r, int i, int it) { return (long)r * 3 + i + it; }
static int block_value(int from, int to, int i, int it) { return from * 100000 + to * 1000 + i + it; }

static void start_all(struct iteration* x) {
  const int it = x->it, n = x->n, m = x->m, root = x->root;
  /* Allreduce (in place on odd iterations) */
  for (int i = 0; i < n; i++) x->ar_in[i] = x->ar_out[i] = ar_value(rank, i, it);
  MPI_Allreduce(it % 2 ? MPI_IN_PLACE : x->ar_in, x->ar_out, n, MPI_LONG, MPI_SUM,
                MPI_COMM_WORLD);
  memset(x->ar_in, 0xa5, sizeof(long) * (size_t)n); /* the program may reuse it at once */

  /* Bcast: odd ranks receive into every 2nd int, whose holes keep -7 (its span ends on
   * an element, inside the block's last page) */
  MPI_Datatype every2nd;
  MPI_Type_vector(n, 1, 2, MPI_INT, &every2nd);
  MPI_Type_commit(&every2nd);
  for (int i = 0; i < 2 * n; i++) x->bc[i] = rank == root ? bc_value(i, it) : -7;
  if (rank != root && rank % 2)
    MPI_Bcast(x->bc, 1, every2nd, root, MPI_COMM_WORLD);
  else
    MPI_Bcast(x->bc, n, MPI_INT, root, MPI_COMM_WORLD);
  MPI_Type_free(&every2nd);
  if (rank == root) memset(x->bc, 0x5a, sizeof(int) * (size_t)n); /* the root's may change */

  /* Reduce (MAX) to the root, in place there every third iteration where the root is 0
   * (MPICH 4.0's own in-place MPI_Reduce crashes at another root: pmodels/mpich#6540) */
  const int rd_in_place = rank == root && root == 0 && it % 3 == 0;
  for (int i = 0; i < n; i++) x->rd_in[i] = x->rd_out[i] = rd_value(rank, i, it);
  MPI_Reduce(rd_in_place ? MPI_IN_PLACE : x->rd_in, x->rd_out, n, MPI_INT, MPI_MAX, root,
             MPI_COMM_WORLD);
  memset(x->rd_in, 0, sizeof(int) * (size_t)n);

  /* Reduce_scatter_block, in place (not deferred) every fourth iteration */
  for (int b = 0; b < size; b++)
    for (int i = 0; i < m; i++) x->rs_in[b * m + i] = rs_value(rank, b * m + i, it);
  if (it % 4 == 1) {
    memcpy(x->rs_out, x->rs_in, sizeof(long) * (size_t)(m * size));
    MPI_Reduce_scatter_block(MPI_IN_PLACE, x->rs_out, m, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
  } else {
    MPI_Reduce_scatter_block(x->rs_in, x->rs_out, m, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
  }
  memset(x->rs_in, 0, sizeof(long) * (size_t)(m * size));

  /* Gather to the root (its own block in place on even iterations) */
  for (int i = 0; i < m; i++) x->ga_in[i] = block_value(rank, root, i, it);
  const int ga_in_place = rank == root && it % 2 == 0;
  if (ga_in_place) memcpy(x->ga_out + (size_t)root * m, x->ga_in, sizeof(int) * (size_t)m);
  MPI_Gather(ga_in_place ? MPI_IN_PLACE : x->ga_in, m, MPI_INT, x->ga_out, m, MPI_INT, root,
             MPI_COMM_WORLD);
  memset(x->ga_in, 0, sizeof(int) * (size_t)m);

  /* Scatter from the root (its block stays in place on odd iterations) */
  if (rank == root)
    for (int b = 0; b < size; b++)
      for (int i = 0; i < m; i++) x->sc_in[b * m + i] = block_value(root, b, i, it);
  const int sc_in_place = rank == root && it % 2;
  MPI_Scatter(x->sc_in, m, MPI_INT, sc_in_place ? MPI_IN_PLACE : x->sc_out, m, MPI_INT, root,
              MPI_COMM_WORLD);
  if (rank == root) memset(x->sc_in, 0, sizeof(int) * (size_t)(m * size));

  /* Allgather (in place on odd iterations) */
  for (int i = 0; i < m; i++) x->ag_in[i] = ar_value(rank, i, it);
  if (it % 2) {
    memcpy(x->ag + (size_t)rank * m, x->ag_in, sizeof(long) * (size_t)m);
    MPI_Allgather(MPI_IN_PLACE, m, MPI_LONG, x->ag, m, MPI_LONG, MPI_COMM_WORLD);
  } else {
    MPI_Allgather(x->ag_in, m, MPI_LONG, x->ag, m, MPI_LONG, MPI_COMM_WORLD);
  }
  memset(x->ag_in, 0, sizeof(long) * (size_t)m);

  /* Alltoall (in place every third iteration) */
  for (int b = 0; b < size; b++)
    for (int i = 0; i < m; i++) x->aa_in[b * m + i] = block_value(rank, b, i, it);
  if (it % 3 == 2) {
    memcpy(x->aa_out, x->aa_in, sizeof(int) * (size_t)(m * size));
    MPI_Alltoall(MPI_IN_PLACE, m, MPI_INT, x->aa_out, m, MPI_INT, MPI_COMM_WORLD);
  } else {
    MPI_Alltoall(x->aa_in, m, MPI_INT, x->aa_out, m, MPI_INT, MPI_COMM_WORLD);
  }
  memset(x->aa_in, 0, sizeof(int) * (size_t)(m * size));
}

/* The results, last call first. */
static void check_all(struct iteration* x) {
  const int it = x->it, n = x->n, m = x->m, root = x->root;
  for (int b = 0; b < size; b++)
    for (int i = 0; i < m; i++)
      if (x->aa_out[b * m + i] != block_value(b, rank, i, it)) fail("MPI_Alltoall", b, i);
  mix(x->aa_out, sizeof(int) * (size_t)(m * size));
  for (int b = 0; b < size; b++)
    for (int i = 0; i < m; i++) expect_long(&x->ag[b * m + i], ar_value(b, i, it), i, "MPI_Allgather");
  mix(x->ag, sizeof(long) * (size_t)(m * size));
  if (!(rank == root && it % 2)) {
    for (int i = 0; i < m; i++)
      if (x->sc_out[i] != block_value(root, rank, i, it)) fail("MPI_Scatter", i, x->sc_out[i]);
    mix(x->sc_out, sizeof(int) * (size_t)m);
  }
  if (rank == root) {
    for (int b = 0; b < size; b++)
      for (int i = 0; i < m; i++)
        if (x->ga_out[b * m + i] != block_value(b, root, i, it)) fail("MPI_Gather", b, i);
    mix(x->ga_out, sizeof(int) * (size_t)(m * size));
  }
  for (int i = 0; i < m; i++) {
    long want = 0;
    for (int r = 0; r < size; r++) want += rs_value(r, rank * m + i, it);
    expect_long(&x->rs_out[i], want, i, "MPI_Reduce_scatter_block");
  }
  mix(x->rs_out, sizeof(long) * (size_t)m);
  if (rank == root) {
    for (int i = 0; i < n; i++) {
      int want = 0;
      for (int r = 0; r < size; r++) want = rd_value(r, i, it) > want ? rd_value(r, i, it) : want;
      if (x->rd_out[i] != want) fail("MPI_Reduce", i, x->rd_out[i]);
    }
    mix(x->rd_out, sizeof(int) * (size_t)n);
  }
  if (rank != root) {
    const int stride = rank % 2 ? 2 : 1;
    for (int i = 0; i < n; i++)
      if (x->bc[i * stride] != bc_value(i, it)) fail("MPI_Bcast", i, x->bc[i * stride]);
    if (stride == 2)
      for (int i = 0; i < n; i++)
        if (x->bc[2 * i + 1] != -7) fail("MPI_Bcast: a hole of the receive type changed", i, 0);
    mix(x->bc, sizeof(int) * (size_t)(2 * n));
  }
  for (int i = 0; i < n; i++) expect_long(&x->ar_out[i], ar_sum(i, it), i, "MPI_Allreduce");
  mix(x->ar_out, sizeof(long) * (size_t)n);
}

/* A result passed on before the program touched it: every rank's allgather is the same, so
 * what the left neighbour sends must equal this rank's own. */
static void pass_on(struct iteration* x) {
  const int m = x->m;
  long* got = pages(sizeof(long) * (size_t)(m * size));
  MPI_Sendrecv(x->ag, m * size, MPI_LONG, (rank + 1) % size, 5, got, m * size, MPI_LONG,
               (rank + size - 1) % size, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  for (int i = 0; i < m * size; i++) expect_long(&got[i], x->ag[i], i, "allgather passed on");
  unpages(got, sizeof(long) * (size_t)(m * size));
}

/* Rank 0's result on its stack (waited for there), the others' on pages (deferred). */
static void mixed_ranks(int it) {
  enum { k = 1024 };
  long on_stack[k];
  long* result = rank == 0 ? on_stack : pages(sizeof(long) * k);
  long* in = pages(sizeof(long) * k);
  for (int i = 0; i < k; i++) in[i] = ar_value(rank, i, it);
  MPI_Allreduce(in, result, k, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
  compute(2);
  for (int i = 0; i < k; i++) expect_long(&result[i], ar_sum(i, it), i, "mixed MPI_Allreduce");
  mix(result, sizeof(long) * k);
  if (rank != 0) unpages(result, sizeof(long) * k);
  unpages(in, sizeof(long) * k);
}

/* On a duplicate whose handler returns errors (not deferred), and on one freed while its
 * deferred collective is pending. */
static void other_communicators(int it, int n) {
  long* in = pages(sizeof(long) * (size_t)n);
  long* out = pages(sizeof(long) * (size_t)n);
  for (int i = 0; i < n; i++) in[i] = ar_value(rank, i, it);
  MPI_Comm returns, freed;
  MPI_Comm_dup(MPI_COMM_WORLD, &returns);
  MPI_Comm_set_errhandler(returns, MPI_ERRORS_RETURN);
  if (MPI_Allreduce(in, out, n, MPI_LONG, MPI_SUM, returns) != MPI_SUCCESS)
    fail("MPI_Allreduce on a communicator returning errors", it, 0);
  for (int i = 0; i < n; i++) expect_long(&out[i], ar_sum(i, it), i, "MPI_ERRORS_RETURN");
  MPI_Comm_free(&returns);
  MPI_Comm_dup(MPI_COMM_WORLD, &freed);
  MPI_Allreduce(in, out, n, MPI_LONG, MPI_SUM, freed);
  MPI_Comm_free(&freed);
  compute(1);
  for (int i = 0; i < n; i++) expect_long(&out[i], ar_sum(i, it), i, "freed communicator");
  mix(out, sizeof(long) * (size_t)n);
  unpages(in, sizeof(long) * (size_t)n);
  unpages(out, sizeof(long) * (size_t)n);
}

/* Once (from helper-7's audit of this design):
 *  - the root broadcasts a datatype of two blocks with a no-access guard page of its own
 *    between them (MPI reads the typed bytes only; a copy of the hull must not fault);
 *  - a result in POSIX shared memory mapped where a private mapping was unmapped: never
 *    deferred, so another rank reading the segment after a barrier sees the data (one
 *    node only);
 *  - MPICH 4: MPI_Gather_c with a count MPI ignores at the non-roots that fits no int, and
 *    MPI_Allgather_c in place with a send count of -1: every rank routes alike. */
static void guard_page_type(void) {
  const size_t blk = 256 * 1024, page = page_size();
  char* base = mmap(NULL, 2 * blk + page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
                    -1, 0);
  if (base == MAP_FAILED) fail("mmap", 0, 0);
  mprotect(base + blk, page, PROT_NONE);
  int lens[2] = {(int)blk, (int)blk};
  MPI_Aint disps[2] = {0, (MPI_Aint)(blk + page)};
  MPI_Datatype t;
  MPI_Type_create_hindexed(2, lens, disps, MPI_BYTE, &t);
  MPI_Type_commit(&t);
  char* got = pages(2 * blk);
  if (rank == 0) {
    memset(base, 1, blk);
    memset(base + blk + page, 2, blk);
    MPI_Bcast(base, 1, t, 0, MPI_COMM_WORLD);
  } else {
    MPI_Bcast(got, (int)(2 * blk), MPI_BYTE, 0, MPI_COMM_WORLD);
    if (got[0] != 1 || got[2 * blk - 1] != 2) fail("guard-page broadcast", got[0], got[2 * blk - 1]);
    mix(got, 2 * blk);
  }
  MPI_Type_free(&t);
  unpages(got, 2 * blk);
  munmap(base, 2 * blk + page);
}

static void shared_where_private_was(void) {
  MPI_Comm node;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
  int node_size = 0;
  MPI_Comm_size(node, &node_size);
  MPI_Comm_free(&node);
  if (node_size != size) return; /* the segment is read by another rank of this node */
  const size_t len = 1u << 20;
  const int n = (int)(len / sizeof(int));
  char name[64];
  snprintf(name, sizeof name, "/overlap_blocking_%ld", (long)getppid());
  if (rank == 0) {
    shm_unlink(name);
    const int fd = shm_open(name, O_CREAT | O_RDWR, 0600);
    if (fd < 0 || ftruncate(fd, (off_t)len) != 0) fail("shm_open", fd, 0);
    close(fd);
  }
  int* root = rank == 0 ? pages(len) : NULL;
  int* first = rank != 0 ? pages(len) : NULL; /* deferred: its region is read then */
  if (rank == 0)
    for (int i = 0; i < n; i++) root[i] = 1;
  MPI_Bcast(rank == 0 ? root : first, n, MPI_INT, 0, MPI_COMM_WORLD);
  if (rank != 0) {
    if (first[n - 1] != 1) fail("broadcast before the shared segment", first[n - 1], 1);
    unpages(first, len);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  const int fd = shm_open(name, O_RDWR, 0600);
  if (fd < 0) fail("shm_open", fd, 1);
  int* seg = mmap(rank == 1 ? (void*)first : NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  close(fd);
  if (seg == MAP_FAILED) fail("mmap of the segment", 0, 0);
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0)
    for (int i = 0; i < n; i++) root[i] = 42;
  int* other = rank > 1 ? pages(len) : NULL; /* rank 1 alone writes the segment */
  MPI_Bcast(rank == 0 ? root : rank == 1 ? seg : other, n, MPI_INT, 0, MPI_COMM_WORLD);
  if (other != NULL) unpages(other, len);
  MPI_Barrier(MPI_COMM_WORLD); /* rank 1's broadcast is complete: its segment holds 42 */
  if (rank == 0 && size > 1 && (seg[0] != 42 || seg[n - 1] != 42))
    fail("rank 1's broadcast result, read through shared memory", seg[0], seg[n - 1]);
  MPI_Barrier(MPI_COMM_WORLD);
  munmap(seg, len);
  if (rank == 0) {
    unpages(root, len);
    shm_unlink(name);
  }
}

#if MPI_VERSION >= 4
static void ignored_large_counts(void) {
  const int m = 4096;
  long* mine = pages(sizeof(long) * (size_t)m);
  long* all = pages(sizeof(long) * (size_t)(m * size));
  for (int i = 0; i < m; i++) mine[i] = ar_value(rank, i, 0);
  /* recvcount is significant at the root only */
  MPI_Gather_c(mine, m, MPI_LONG, all, rank == 0 ? m : (MPI_Count)1 << 40, MPI_LONG, 0,
               MPI_COMM_WORLD);
  if (rank == 0)
    for (int b = 0; b < size; b++)
      for (int i = 0; i < m; i++) expect_long(&all[b * m + i], ar_value(b, i, 0), i, "MPI_Gather_c");
  /* in place, sendcount and sendtype are ignored */
  memcpy(all + (size_t)rank * m, mine, sizeof(long) * (size_t)m);
  MPI_Allgather_c(MPI_IN_PLACE, rank == 1 ? -1 : 0, MPI_DATATYPE_NULL, all, m, MPI_LONG,
                  MPI_COMM_WORLD);
  for (int b = 0; b < size; b++)
    for (int i = 0; i < m; i++) expect_long(&all[b * m + i], ar_value(b, i, 0), i, "MPI_Allgather_c");
  mix(all, sizeof(long) * (size_t)(m * size));
  unpages(mine, sizeof(long) * (size_t)m);
  unpages(all, sizeof(long) * (size_t)(m * size));
}
#endif

int main(int argc, char** argv) {
  /* glibc serves blocks from 4 KiB with mmap() of their own, whatever was freed before */
  mallopt(M_MMAP_THRESHOLD, 4096);
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (argc < 3) fail("usage: intercept-blocking SEED ITERATIONS", argc, 3);
  uint64_t seed = strtoull(argv[1], NULL, 10);
  const int iterations = atoi(argv[2]);
  uint64_t s = seed * 2654435761u + 1;
  for (int it = 0; it < iterations; it++) {
    struct iteration x;
    x.it = it;
    /* Whole pages: every buffer owns its pages, so the calls are deferrable; on odd
     * iterations the allreduce's result is a glibc block of its own (its last page's
     * slack is the block's), and the broadcast's buffer always is one. */
    x.n = 1024 * (1 + (int)(next_random(&s) % 24));
    x.m = 1024 * (1 + (int)(next_random(&s) % 3));
    x.root = (int)(next_random(&s) % (uint64_t)size);
    const size_t n = (size_t)x.n, mp = (size_t)x.m * (size_t)size;
    x.ar_in = pages(sizeof(long) * n);
    long* ar_block = it % 2 ? malloc(sizeof(long) * n + 24) : NULL;
    x.ar_out = it % 2 ? ar_block : pages(sizeof(long) * n);
    x.bc = malloc(sizeof(int) * 2 * n);
    x.rd_in = pages(sizeof(int) * n);
    x.rd_out = pages(sizeof(int) * n);
    x.rs_in = pages(sizeof(long) * mp);
    x.rs_out = pages(sizeof(long) * mp);
    x.ga_in = pages(sizeof(int) * (size_t)x.m);
    x.ga_out = pages(sizeof(int) * mp);
    x.sc_in = pages(sizeof(int) * mp);
    x.sc_out = pages(sizeof(int) * (size_t)x.m);
    x.ag = pages(sizeof(long) * mp);
    x.ag_in = pages(sizeof(long) * (size_t)x.m);
    x.aa_in = pages(sizeof(int) * mp);
    x.aa_out = pages(sizeof(int) * mp);
    start_all(&x);
    compute(3);
    if (it % 2) pass_on(&x);
    check_all(&x);
    mixed_ranks(it);
    other_communicators(it, x.n);
    unpages(x.ar_in, sizeof(long) * n);
    if (ar_block != NULL)
      free(ar_block);
    else
      unpages(x.ar_out, sizeof(long) * n);
    free(x.bc);
    unpages(x.rd_in, sizeof(int) * n);
    unpages(x.rd_out, sizeof(int) * n);
    unpages(x.rs_in, sizeof(long) * mp);
    unpages(x.rs_out, sizeof(long) * mp);
    unpages(x.ga_in, sizeof(int) * (size_t)x.m);
    unpages(x.ga_out, sizeof(int) * mp);
    unpages(x.sc_in, sizeof(int) * mp);
    unpages(x.sc_out, sizeof(int) * (size_t)x.m);
    unpages(x.ag, sizeof(long) * mp);
    unpages(x.ag_in, sizeof(long) * (size_t)x.m);
    unpages(x.aa_in, sizeof(int) * mp);
    unpages(x.aa_out, sizeof(int) * mp);
  }
  guard_page_type();
  shared_where_private_was();
#if MPI_VERSION >= 4
  ignored_large_counts();
#endif
  /* Left pending into MPI_Finalize, read after it. */
  const int n = 20480;
  long* in = pages(sizeof(long) * n);
  long* out = pages(sizeof(long) * n);
  for (int i = 0; i < n; i++) in[i] = ar_value(rank, i, iterations);
  MPI_Allreduce(in, out, n, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
  MPI_Finalize();
  for (int i = 0; i < n; i++) {
    if (out[i] != ar_sum(i, iterations)) {
      fprintf(stderr, "FAIL rank %d: MPI_Allreduce pending at MPI_Finalize [%d]: %ld\n", rank, i,
              out[i]);
      return 1;
    }
  }
  mix(out, sizeof(long) * n);
  printf("rank %d digest %016llx\n", rank, (unsigned long long)digest);
  return 0;
}
