/* Programs MPI runs that overlap-run must run exactly as MPI does (issue 29): the same
 * binary runs plain and under overlap-run, each mode checks its own data, and every rank
 * prints a digest of what it received (and of the errors MPI returned) that the driver
 * (check_intercept.py) compares between the two runs. Modes:
 *   huge SEED               a blocking receive of a contiguous type of large elements, up to
 *                           64 MiB above 2^31 bytes: every element placed, MPI_Get_count
 *                           right
 *   owned SEED ITERATIONS   buffers the program's own pending requests still hold: Isend
 *                           then a blocking Recv into the same buffers, Irecv then Send from
 *                           them, persistent sends, freed requests, a nonblocking broadcast
 *                           (strictly erroneous where a receive overlaps a pending send,
 *                           but both MPIs run it)
 *   derived SEED ITERATIONS derived datatypes with holes, resized extents and typemaps out
 *                           of memory order on each side, communicators whose error handler
 *                           returns errors or is the program's own, and errors returned
 *                           (truncation, an invalid rank)
 *   overlong SEED ITERATIONS  receives whose count is larger than the heap block they land
 *                           in (MPI writes only the message): page-aligned small blocks
 *                           with other blocks after them, whose pages must stay open, and a
 *                           page-aligned block as long as its count, which may close
 *   halves SEED ITERATIONS  MPI_Sendrecv whose send and receive buffers are disjoint but
 *                           share a page: halves of one heap block either way round, a
 *                           small send from the block's tail, a strided type's odd and even
 *                           elements; then halves of two blocks (deferred) */
#define _GNU_SOURCE
#include <errno.h>
#include <malloc.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "case_support.h"

/* ---- buffers: heap (an mmap block when large), page aligned, a mapping of its own ------ */
enum { HEAP, ALIGNED, MAPPED, NKINDS };
struct buffer {
  void* data;
  size_t len;
  int kind;
};

static void* make(struct buffer* b, size_t len, int kind) {
  b->len = len > 0 ? len : 1;
  b->kind = kind;
  switch (kind) {
    case HEAP:
      b->data = malloc(b->len);
      break;
    case ALIGNED:
      if (posix_memalign(&b->data, 4096, b->len) != 0) b->data = NULL;
      break;
    default:
      b->data = mmap(NULL, b->len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
      if (b->data == MAP_FAILED) b->data = NULL;
  }
  if (b->data == NULL) fail("out of memory", (long)len, kind);
  return b->data;
}

static void drop(struct buffer* b) {
  if (b->kind == MAPPED)
    munmap(b->data, b->len);
  else
    free(b->data);
}

/* ---- huge: receives across 2^31 bytes ------------------------------------------------- */
static uint64_t word(uint64_t seed, int round, size_t i) {
  return (i * 0x9E3779B97F4A7C15ull) ^ (seed + (uint64_t)round * 0x5851F42D4C957F2Dull);
}

static void mode_huge(uint64_t seed) {
  uint64_t rnd = seed | 1;
  /* One message per run: Open MPI 4.1 fails a second message above 2 GiB over shared
   * memory after a first one (MPI_ERR_TRUNCATE, or EFAULT in its single-copy read), plain,
   * in this program though not in simpler ones. */
  {
    const int round = 0;
    /* Elements of whole pages (4 to 64 KiB), so that the buffer, a mapping of its own, has
     * page-aligned ends under any allocator: every run defers the receive. */
    const int elem_ints = 1024 * (1 + (int)(next_random(&rnd) % 16));
    const size_t elem = (size_t)elem_ints * sizeof(int);
    /* Above 2^31 bytes, where MPI_Get_count's int byte count is MPI_UNDEFINED. */
    const size_t target = (1ull << 31) + next_random(&rnd) % (1u << 26);
    const int count = (int)(target / elem) + 1;
    const size_t bytes = (size_t)count * elem, words = bytes / sizeof(uint64_t);
    MPI_Datatype big;
    MPI_Type_contiguous(elem_ints, MPI_INT, &big);
    MPI_Type_commit(&big);
    if (rank == 0) printf("huge round %d: %d elements of %zu bytes, %zu bytes\n", round, count,
                          elem, bytes);
    if (rank <= 1) {
      /* A mapping of its own: its pages are the buffer's alone, under any allocator. */
      uint64_t* buf =
          mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
      if (buf == MAP_FAILED) fail("huge: out of memory", (long)bytes, round);
      /* Huge pages where the kernel gives them on request (THP mode madvise or always):
       * first touches of 2 GiB page by page were most of this test's time on the project's
       * 2-core virtual machine (its plain run 22.3 s, 4.7 s with them). overlap-run's
       * protection stays per 4 KiB page. */
      madvise(buf, bytes, MADV_HUGEPAGE);
      if (rank == 0) {
        for (size_t i = 0; i < words; i++) buf[i] = word(seed, round, i);
        MPI_Send(buf, count, big, 1, 70 + round, MPI_COMM_WORLD);
      } else {
        MPI_Status st;
        MPI_Recv(buf, count, big, 0, 70 + round, MPI_COMM_WORLD, &st);
        if (next_random(&rnd) % 2) compute(50);
        uint64_t sum = 0;
        for (size_t i = 0; i < words; i++) {
          if (buf[i] != word(seed, round, i)) fail("huge: word differs (index, round)", (long)i, round);
          sum += buf[i];
        }
        int elements = -1, byte_count = -1;
        MPI_Count elements_x = -1;
        MPI_Get_count(&st, big, &elements);
        MPI_Get_count(&st, MPI_BYTE, &byte_count);
        MPI_Get_elements_x(&st, MPI_BYTE, &elements_x);
        if (elements != count) fail("huge: MPI_Get_count (got, sent)", elements, count);
        if (elements_x != (MPI_Count)bytes) fail("huge: MPI_Get_elements_x", (long)elements_x, (long)bytes);
        mix(&sum, sizeof sum);
        mix(&byte_count, sizeof byte_count);
      }
      /* Open MPI 4.1's MPI_Send of more than 2 GiB over shared memory returns while the
       * receiver still reads the last part (seen: its process_vm_readv of the tail failed
       * with EFAULT after the sender unmapped the buffer): the sender keeps it until the
       * receiver is done. */
      MPI_Barrier(MPI_COMM_WORLD);
      munmap(buf, bytes);
    } else {
      MPI_Barrier(MPI_COMM_WORLD);
    }
    MPI_Type_free(&big);
  }
}

/* ---- owned: buffers the program's own requests hold ------------------------------------ */
enum { ISEND_RECV, IRECV_SEND, PERSISTENT, FREED, IBCAST, NVARIANTS };
#define MAX_BUFS 4

static void* leaked[4096]; /* buffers of freed requests: MPI's until it is done with them */
static int nleaked;

static void exchange_owned(int variant, int peer, MPI_Comm pair, struct buffer* b, int k, int it) {
  MPI_Request req[MAX_BUFS];
  for (int j = 0; j < k; j++) {
    const int n = (int)(b[j].len / sizeof(int)), tag = it * MAX_BUFS + j;
    switch (variant) {
      case ISEND_RECV:
      case FREED:
        MPI_Isend(b[j].data, n, MPI_INT, peer, tag, MPI_COMM_WORLD, &req[j]);
        break;
      case IRECV_SEND:
        MPI_Irecv(b[j].data, n, MPI_INT, peer, tag, MPI_COMM_WORLD, &req[j]);
        break;
      case PERSISTENT:
        MPI_Send_init(b[j].data, n, MPI_INT, peer, tag, MPI_COMM_WORLD, &req[j]);
        break;
      default:
        MPI_Ibcast(b[j].data, n, MPI_INT, 0, pair, &req[j]);
    }
  }
  if (variant == PERSISTENT) MPI_Startall(k, req);
  if (variant == FREED) {
    for (int j = 0; j < k; j++) MPI_Request_free(&req[j]);
  }
  for (int j = 0; j < k; j++) {
    const int n = (int)(b[j].len / sizeof(int)), tag = it * MAX_BUFS + j;
    if (variant == IRECV_SEND) {
      MPI_Send(b[j].data, n, MPI_INT, peer, tag, MPI_COMM_WORLD);
    } else if (variant != IBCAST) {
      MPI_Recv(b[j].data, n, MPI_INT, peer, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else if (rank % 2 == 0) { /* the root receives into what its broadcast reads */
      MPI_Recv(b[j].data, n, MPI_INT, peer, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else { /* the other end sends the same bytes from elsewhere */
      void* copy = malloc(b[j].len);
      fill(copy, b[j].len, (uint64_t)it, j);
      MPI_Send(copy, n, MPI_INT, peer, tag, MPI_COMM_WORLD);
      free(copy);
    }
  }
  MPI_Status statuses[MAX_BUFS];
  if (variant != FREED) MPI_Waitall(k, req, statuses);
  if (variant == PERSISTENT) {
    for (int j = 0; j < k; j++) MPI_Request_free(&req[j]);
  }
}

static void mode_owned(uint64_t seed, int iterations) {
  const int peer = rank ^ 1;
  MPI_Comm pair;
  MPI_Comm_split(MPI_COMM_WORLD, rank / 2, rank, &pair);
  uint64_t rnd = seed | 1;
  for (int it = 0; it < iterations; it++) {
    const int variant = (int)(next_random(&rnd) % NVARIANTS);
    const int k = 1 + (int)(next_random(&rnd) % MAX_BUFS);
    const int sleeper = next_random(&rnd) % 4 == 0;
    struct buffer b[MAX_BUFS];
    for (int j = 0; j < k; j++) {
      const size_t ints = 100 + next_random(&rnd) % 99901;
      make(&b[j], ints * sizeof(int), (int)(next_random(&rnd) % NKINDS));
      /* Both ends hold the same bytes: whatever order MPI reads and writes them in, each
       * buffer ends with them. */
      fill(b[j].data, b[j].len, (uint64_t)it, j);
    }
    if (peer < size) {
      if (sleeper && rank % 2 == 0) usleep(200000);
      exchange_owned(variant, peer, pair, b, k, it);
    }
    for (int j = 0; j < k; j++) {
      check(b[j].data, b[j].len, (uint64_t)it, j, "owned");
      if (variant == FREED && nleaked < 4096 && b[j].kind != MAPPED)
        leaked[nleaked++] = b[j].data;
      else if (variant != FREED)
        drop(&b[j]);
    }
  }
  MPI_Barrier(MPI_COMM_WORLD);
  for (int i = 0; i < nleaked; i++) free(leaked[i]);
  MPI_Comm_free(&pair);
}

/* ---- derived: datatypes with holes, error handlers, errors returned -------------------- */
enum { CONTIG, VECTOR, RESIZED, PERMUTED, INDEXED, SPARSE, NTYPES };

/* A type of `ints` MPI_INTs per element, built from a random shape. */
static MPI_Datatype make_type(int shape, uint64_t* rnd, int* ints) {
  MPI_Datatype t, inner;
  const int m = 1 + (int)(next_random(rnd) % 8);
  switch (shape) {
    case CONTIG:
      MPI_Type_contiguous(m, MPI_INT, &t);
      *ints = m;
      break;
    case VECTOR: /* holes no larger than the blocks */
      MPI_Type_vector(3, m, m + 1 + (int)(next_random(rnd) % (unsigned)m), MPI_INT, &t);
      *ints = 3 * m;
      break;
    case RESIZED: /* m ints, extent larger by up to m ints */
      MPI_Type_contiguous(m, MPI_INT, &inner);
      MPI_Type_create_resized(inner, 0, (MPI_Aint)(m + 1 + next_random(rnd) % (unsigned)m) * 4, &t);
      MPI_Type_free(&inner);
      *ints = m;
      break;
    case PERMUTED: { /* {int at 4, int at 0}: no holes, typemap out of memory order */
      int lens[2] = {1, 1};
      MPI_Aint disps[2] = {4, 0};
      MPI_Datatype types[2] = {MPI_INT, MPI_INT};
      MPI_Type_create_struct(2, lens, disps, types, &t);
      *ints = 2;
      break;
    }
    case INDEXED: { /* blocks of 1..m ints with gaps of 0..1 ints */
      int lens[4], disps[4], at = 0;
      *ints = 0;
      for (int i = 0; i < 4; i++) {
        lens[i] = 1 + (int)(next_random(rnd) % (unsigned)m);
        disps[i] = at;
        at += lens[i] + (int)(next_random(rnd) % 2);
        *ints += lens[i];
      }
      MPI_Type_indexed(4, lens, disps, MPI_INT, &t);
      break;
    }
    default: /* holes far larger than the data */
      MPI_Type_vector(2, 1, 3 + m * 4, MPI_INT, &t);
      *ints = 2;
  }
  MPI_Type_commit(&t);
  return t;
}

/* Bytes `count` elements of `t` span from the buffer's start (lower bounds are 0 here). */
static size_t span_of(MPI_Datatype t, int count) {
  MPI_Aint lb, extent, true_lb, true_extent;
  MPI_Type_get_extent(t, &lb, &extent);
  MPI_Type_get_true_extent(t, &true_lb, &true_extent);
  return count > 0 ? (size_t)((count - 1) * extent + true_lb + true_extent) : 0;
}

static int handler_calls, handler_last_class;
static void program_handler(MPI_Comm* comm, int* code, ...) {
  (void)comm;
  handler_calls++;
  MPI_Error_class(*code, &handler_last_class);
}

/* The values a send of (count, t) from `buf` carries, as MPI_INTs, via MPI's own packing. */
static int* sent_values(void* buf, int count, MPI_Datatype t, int n) {
  int* values = malloc((size_t)n * sizeof(int) + 1);
  int pos = 0;
  MPI_Pack(buf, count, t, values, n * (int)sizeof(int), &pos, MPI_COMM_SELF);
  return values;
}

/* What MPI itself leaves in a buffer of (count, t), prefilled like the receiver's, when it
 * receives `n` ints: the same receive on MPI_COMM_SELF. */
static void expected_buffer(void* out, int count, MPI_Datatype t, const int* values, int n) {
  MPI_Request r[2];
  MPI_Irecv(out, count, t, 0, 1, MPI_COMM_SELF, &r[0]);
  MPI_Isend(values, n, MPI_INT, 0, 1, MPI_COMM_SELF, &r[1]);
  MPI_Status statuses[2];
  MPI_Waitall(2, r, statuses);
}

static int error_class(int rc) {
  int c = rc;
  if (rc != MPI_SUCCESS) MPI_Error_class(rc, &c);
  return c;
}

/* One message from `from` to its pair partner, both drawing the same random choices.
 * `refused`: a large, dense send to a rank that does not exist (where errors return), so
 * that every run has at least one send MPI refuses whatever the seed. */
static void derived_message(uint64_t* rnd, int it, MPI_Comm comm, int errors, int refused) {
  int sints, rints;
  const int sshape = (int)(next_random(rnd) % NTYPES);
  MPI_Datatype st = make_type(refused ? CONTIG : sshape, rnd, &sints);
  MPI_Datatype rt = make_type((int)(next_random(rnd) % NTYPES), rnd, &rints);
  /* A quarter of the messages small (eager, and where truncation is tried), the rest up to
   * a few MiB. */
  const int drawn = 1 + (int)(next_random(rnd) % (next_random(rnd) % 4 == 0 ? 64 : 40000));
  const int scount = refused && drawn < 8192 ? 8192 : drawn;
  const int n = scount * sints;
  /* Room for the message and a random surplus, or (only where errors return) too little. */
  int rcount = (n + rints - 1) / rints + (int)(next_random(rnd) % 3);
  /* Truncation only of small messages: Open MPI 4.1 writes a truncated message that goes
   * by its rendezvous protocol (single-copy over shared memory) past the receive buffer
   * (seen with valgrind: process_vm_readv into the bytes after the buffer). */
  const int truncate =
      !refused && errors && n * (int)sizeof(int) <= 2048 && next_random(rnd) % 2 == 0;
  if (truncate) rcount = (n - 1) / rints;
  const int bad_rank = refused || (errors && !truncate && next_random(rnd) % 6 == 0);
  const int from = (int)(next_random(rnd) % 2), skind = (int)(next_random(rnd) % NKINDS),
            rkind = (int)(next_random(rnd) % NKINDS), late = (int)(next_random(rnd) % 2);
  const int me = rank % 2, partner = rank ^ 1, tag = 1000 + it;
  struct buffer sb, rb;
  if (me == from) {
    make(&sb, span_of(st, scount), skind);
    fill(sb.data, sb.len, (uint64_t)it, 1);
    const int dest = bad_rank ? size + 3 : partner;
    const int rc = MPI_Send(sb.data, scount, st, dest, tag, comm);
    const int cls = error_class(rc);
    mix(&cls, sizeof cls);
    memset(sb.data, 0x5a, sb.len); /* the program's own again */
    drop(&sb);
  } else if (!bad_rank) {
    make(&rb, span_of(rt, rcount), rkind);
    fill(rb.data, rb.len, (uint64_t)it, 2);
    MPI_Status status;
    const int rc = MPI_Recv(rb.data, rcount, rt, partner, tag, comm, &status);
    const int cls = error_class(rc);
    mix(&cls, sizeof cls);
    if (truncate && cls != MPI_ERR_TRUNCATE) fail("derived: expected MPI_ERR_TRUNCATE", cls, it);
    if (!truncate) {
      if (rc != MPI_SUCCESS) fail("derived: receive failed (class, iteration)", cls, it);
      if (late) compute(5);
      /* The sender's bytes, rebuilt here, and what MPI alone would leave in this buffer. */
      struct buffer model, want;
      make(&model, span_of(st, scount), HEAP);
      fill(model.data, model.len, (uint64_t)it, 1);
      int* values = sent_values(model.data, scount, st, n);
      make(&want, rb.len, HEAP);
      fill(want.data, want.len, (uint64_t)it, 2);
      expected_buffer(want.data, rcount, rt, values, n);
      if (memcmp(want.data, rb.data, rb.len) != 0) {
        size_t i = 0;
        while (((unsigned char*)want.data)[i] == ((unsigned char*)rb.data)[i]) i++;
        fail("derived: received buffer differs from MPI's own (byte, iteration)", (long)i, it);
      }
      int got = -1;
      MPI_Get_elements(&status, MPI_INT, &got);
      if (got != n) fail("derived: MPI_Get_elements (got, sent)", got, n);
      mix(rb.data, rb.len);
      free(values);
      drop(&model);
      drop(&want);
    }
    drop(&rb);
  }
  MPI_Type_free(&st);
  MPI_Type_free(&rt);
}

static void mode_derived(uint64_t seed, int iterations) {
  MPI_Comm fatal_comm = MPI_COMM_WORLD, returns, own;
  MPI_Comm_dup(MPI_COMM_WORLD, &returns);
  MPI_Comm_set_errhandler(returns, MPI_ERRORS_RETURN);
  MPI_Errhandler handler;
  MPI_Comm_create_errhandler(program_handler, &handler);
  MPI_Comm_dup(MPI_COMM_WORLD, &own);
  MPI_Comm_set_errhandler(own, handler);
  uint64_t rnd = seed | 1;
  for (int it = 0; it < iterations; it++) {
    const int drawn = (int)(next_random(&rnd) % 4);  /* half on a fatal communicator */
    const int refused = it == 0, which = refused ? 2 : drawn;
    MPI_Comm comm = which <= 1 ? fatal_comm : which == 2 ? returns : own;
    if ((rank ^ 1) < size) derived_message(&rnd, it, comm, which >= 2, refused);
  }
  mix(&handler_calls, sizeof handler_calls);
  mix(&handler_last_class, sizeof handler_last_class);
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Comm_free(&own);
  MPI_Errhandler_free(&handler);
  MPI_Comm_free(&returns);
}

/* ---- overlong: a receive's count beyond its heap block --------------------------------- */
/* Whether every page of [lo, hi) is readable and writable in /proc/self/maps. */
static int pages_open(uintptr_t lo, uintptr_t hi) {
  FILE* f = fopen("/proc/self/maps", "r");
  if (f == NULL) fail("overlong: /proc/self/maps", errno, 0);
  char line[512];
  int open = 1;
  while (fgets(line, sizeof line, f) != NULL) {
    unsigned long a = 0, b = 0;
    char perms[5] = "";
    if (sscanf(line, "%lx-%lx %4s", &a, &b, perms) != 3) continue;
    if (a < hi && lo < b && (perms[0] != 'r' || perms[1] != 'w')) open = 0;
  }
  fclose(f);
  return open;
}

static void mode_overlong(uint64_t seed, int iterations) {
  enum { COUNT = 64 * 1024, SHORT = 64, NEIGHBOURS = 24 };
  if (rank > 1) return;
  for (int it = 0; it < iterations; it++) {
    /* Both blocks page aligned in the brk heap (below the mmap threshold main sets), with
     * blocks of the program's after them, so that COUNT bytes from either lie in the heap. */
    void *shortb = NULL, *exact = NULL;
    if (posix_memalign(&shortb, 4096, SHORT) != 0 || posix_memalign(&exact, 4096, COUNT) != 0)
      fail("overlong: out of memory", it, 0);
    unsigned char* after[NEIGHBOURS];
    for (int i = 0; i < NEIGHBOURS; i++) {
      after[i] = malloc(6000);
      if (after[i] == NULL) fail("overlong: out of memory", it, i);
      fill(after[i], 6000, seed, 1000 + i);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
      /* Late, so that a receive deferred wrongly would still be in flight below. */
      usleep(100 * 1000);
      fill(shortb, SHORT, seed, 2 * it);
      MPI_Send(shortb, SHORT, MPI_BYTE, 1, 80, MPI_COMM_WORLD);
      fill(exact, COUNT, seed, 2 * it + 1);
      MPI_Send(exact, COUNT, MPI_BYTE, 1, 81, MPI_COMM_WORLD);
    } else {
      const uintptr_t lo = (uintptr_t)shortb;
      /* Under glibc the heap goes on past the block; another allocator may keep guard
       * pages there: only pages open before must stay open. */
      const int open_before = pages_open(lo + 4096, lo + COUNT);
      MPI_Status st;
      MPI_Recv(shortb, COUNT, MPI_BYTE, 0, 80, MPI_COMM_WORLD, &st);
      /* The pages past the block hold the program's other blocks (and MPI's). */
      if (open_before && !pages_open(lo + 4096, lo + COUNT))
        fail("overlong: pages past a block closed", it, 0);
      int got = -1;
      MPI_Get_count(&st, MPI_BYTE, &got);
      if (got != SHORT) fail("overlong: MPI_Get_count (got, sent)", got, SHORT);
      check(shortb, SHORT, seed, 2 * it, "overlong: short block");
      MPI_Recv(exact, COUNT, MPI_BYTE, 0, 81, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      check(exact, COUNT, seed, 2 * it + 1, "overlong: exact block");
    }
    for (int i = 0; i < NEIGHBOURS; i++) {
      check(after[i], 6000, seed, 1000 + i, "overlong: a neighbouring block");
      free(after[i]);
    }
    free(exact);
    free(shortb);
  }
}

/* ---- halves: MPI_Sendrecv's two buffers on a common page ------------------------------ */
static void exchange(double* send, int scount, MPI_Datatype stype, double* recv, int rcount,
                     MPI_Datatype rtype, int peer, int tag) {
  MPI_Status st;
  MPI_Sendrecv(send, scount, stype, peer, tag, recv, rcount, rtype, peer, tag, MPI_COMM_WORLD, &st);
  if (st.MPI_SOURCE != peer || st.MPI_TAG != tag) fail("halves: status (source, tag)", st.MPI_SOURCE, st.MPI_TAG);
}

static void fill_doubles(double* p, size_t n, uint64_t seed, int who, int kase) {
  for (size_t i = 0; i < n; i++) p[i] = (double)(seed % 1000) + who * 1e6 + kase * 1e3 + (double)i;
}

static void check_doubles(const double* p, size_t n, size_t stride, uint64_t seed, int who,
                          int kase) {
  for (size_t i = 0; i < n; i++) {
    const double want = (double)(seed % 1000) + who * 1e6 + kase * 1e3 + (double)(i * stride);
    if (p[i * stride] != want) fail("halves: element differs (case, index)", kase, (long)i);
  }
  for (size_t i = 0; i < n; i++) mix(&p[i * stride], sizeof(double));
}

static void mode_halves(uint64_t seed, int iterations) {
  if (rank > 1) return;
  const int peer = 1 - rank;
  enum { N = 40000 }; /* 320 KB a half: the block comes from mmap() (main's threshold) */
  MPI_Datatype strided;
  MPI_Type_vector(N, 1, 2, MPI_DOUBLE, &strided);
  MPI_Type_commit(&strided);
  for (int it = 0; it < iterations; it++) {
    double* a = malloc(2 * N * sizeof(double));
    if (a == NULL) fail("halves: out of memory", it, 0);
    /* Receive into the first half, send the second (its first elements share the first
     * half's last page), then the other way round. */
    fill_doubles(a + N, N, seed, rank, 10 * it);
    exchange(a + N, N, MPI_DOUBLE, a, N, MPI_DOUBLE, peer, 1);
    check_doubles(a, N, 1, seed, peer, 10 * it);
    fill_doubles(a, N, seed, rank, 10 * it + 1);
    exchange(a, N, MPI_DOUBLE, a + N, N, MPI_DOUBLE, peer, 2);
    check_doubles(a + N, N, 1, seed, peer, 10 * it + 1);
    /* A send below --min-size from the block's last elements, received with a count that
     * reaches them. */
    fill_doubles(a + 2 * N - 64, 64, seed, rank, 10 * it + 2);
    exchange(a + 2 * N - 64, 64, MPI_DOUBLE, a, 2 * N - 64, MPI_DOUBLE, peer, 3);
    check_doubles(a, 64, 1, seed, peer, 10 * it + 2);
    /* The odd elements sent, the even ones received: the receive's hull holds the send. */
    for (size_t i = 0; i < N; i++) a[2 * i + 1] = (double)(seed % 1000) + rank * 1e6 + (10 * it + 3) * 1e3 + (double)(2 * i);
    exchange(a + 1, 1, strided, a, 1, strided, peer, 4);
    check_doubles(a, N, 2, seed, peer, 10 * it + 3);
    /* Halves of two blocks: nothing shared, deferred as usual. */
    double* b = malloc(N * sizeof(double));
    if (b == NULL) fail("halves: out of memory", it, 1);
    fill_doubles(b, N, seed, rank, 10 * it + 4);
    exchange(b, N, MPI_DOUBLE, a, N, MPI_DOUBLE, peer, 5);
    check_doubles(a, N, 1, seed, peer, 10 * it + 4);
    free(b);
    free(a);
  }
  MPI_Type_free(&strided);
}

int main(int argc, char** argv) {
  /* glibc takes blocks from mmap() above a threshold it raises when the program frees such
   * a block; pinned, large heap buffers stay blocks of their own, whose ends overlap-run
   * owns (docs/overlap-run.md, "Protection"). */
  mallopt(M_MMAP_THRESHOLD, 128 * 1024);
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const char* mode = argc > 1 ? argv[1] : "owned";
  const uint64_t seed = argc > 2 ? strtoull(argv[2], NULL, 10) : 1;
  const int iterations = argc > 3 ? atoi(argv[3]) : 20;
  if (rank == 0) printf("mode %s seed %llu iterations %d ranks %d\n", mode,
                        (unsigned long long)seed, iterations, size);
  if (strcmp(mode, "huge") == 0)
    mode_huge(seed);
  else if (strcmp(mode, "owned") == 0)
    mode_owned(seed, iterations);
  else if (strcmp(mode, "derived") == 0)
    mode_derived(seed, iterations);
  else if (strcmp(mode, "overlong") == 0)
    mode_overlong(seed, iterations);
  else if (strcmp(mode, "halves") == 0)
    mode_halves(seed, iterations);
  else
    fail("unknown mode", 0, 0);
  MPI_Barrier(MPI_COMM_WORLD);
  printf("rank %d digest %016llx\n", rank, (unsigned long long)digest);
  fflush(stdout);
  MPI_Finalize();
  return 0;
}
