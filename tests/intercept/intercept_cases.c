/* Test program for overlap-run: the same binary runs plain and under interception, and
 * each mode checks itself (expected bytes are a function of seed, case and index) and
 * prints a digest of everything it received, which the driver (check_intercept.py)
 * compares between the plain and the intercepted run. Modes:
 *   random SEED ITERATIONS   randomised exchanges between rank pairs (see run_case)
 *   threads SEED ITERATIONS  the same from two threads per rank (MPI_THREAD_MULTIPLE)
 *   order                    many messages between one pair, sizes mixed, order kept
 *   mpi-touch                MPI itself reads/writes buffers of deferred transfers
 *   io                       read()/write()/fread()/fwrite() on buffers in flight
 *   segv                     the program's own SIGSEGV handlers still get their faults
 *   fork                     fork() with a transfer in flight
 *   touchline                a receive touched at a known line (the report must name it)
 *   counts                   small calls at known lines, each not deferred for a known
 *                            reason (the report must count each exactly)
 *   place SEED ITERATIONS    large receives, shorter than their buffers, into glibc mmap
 *                            blocks and aligned mappings, touched at once or later; from
 *                            half way on after MPI_Alloc_mem (then copied, not moved)
 *   fence-threads SEED ROUNDS  one thread's collective while another thread's transfer is
 *                            deferred (MPI_THREAD_MULTIPLE, 2 ranks; see mode_fence_threads) */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <malloc.h>
#include <errno.h>
#include <mpi.h>
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/io_uring.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "case_support.h"

/* ---- buffers of every kind the tests place messages in ---------------------------- */
enum { HEAP, HEAP_OFFSET, PAGE_ALIGNED, SHARED_PAGE, GLOBAL, STACK, NKINDS };
static unsigned char global_area[(6 << 20) + 8192];

struct buffer {
  unsigned char* base; /* what to free */
  unsigned char* data;
  unsigned char* neighbour; /* other data on the same pages, or NULL */
  size_t neighbour_len;
  int kind;
};

static void make_buffer(struct buffer* b, int kind, size_t n, uint64_t* rnd) {
  memset(b, 0, sizeof *b);
  b->kind = kind;
  switch (kind) {
    case HEAP:
      b->base = b->data = malloc(n + 1);
      break;
    case HEAP_OFFSET: { /* an interior pointer at any alignment */
      const size_t off = next_random(rnd) % 4096;
      b->base = malloc(n + off + 1);
      b->data = b->base + off;
      b->neighbour = off > 0 ? b->base : NULL; /* (at offset 0 it would be the data itself) */
      b->neighbour_len = off;
      break;
    }
    case PAGE_ALIGNED:
      if (posix_memalign((void**)&b->base, 4096, n + 4096) != 0) fail("posix_memalign", 0, 0);
      b->data = b->base;
      break;
    case SHARED_PAGE: { /* two objects on shared pages: the message and a neighbour */
      const size_t off = 64 + next_random(rnd) % 2000;
      b->base = malloc(n + 2 * off);
      b->neighbour = b->base;
      b->neighbour_len = off;
      b->data = b->base + off;
      break;
    }
    case GLOBAL:
      b->data = global_area + next_random(rnd) % 4096;
      break;
    default:
      break;
  }
}

static void free_buffer(struct buffer* b) {
  if (b->kind != GLOBAL && b->kind != STACK) free(b->base);
}

/* ---- random: one case between partners (rank ^ 1) ---------------------------------- */
static size_t random_size(uint64_t* rnd) {
  static const size_t sizes[] = {0,     1,      100,     4095,           4096,    4097,   65536,
                                 65537, 100000, 1 << 20, (1 << 20) + 17, 3 << 20, 6 << 20};
  const size_t n = sizes[next_random(rnd) % (sizeof sizes / sizeof sizes[0])];
  return n > 1000 ? n - next_random(rnd) % 64 : n;
}

static void run_case(uint64_t seed, int kase, uint64_t* rnd, MPI_Comm comm, int tag_base) {
  const int partner = rank ^ 1;
  if (partner >= size) return;
  const size_t n = random_size(rnd);
  int kind = (int)(next_random(rnd) % NKINDS);
  if (kind == STACK && n > 60000) kind = HEAP;
  if (kind == GLOBAL && threaded) kind = HEAP;
  const int op = (int)(next_random(rnd) % 5); /* send/recv, sendrecv, replace, wildcard, status */
  const int touch = (int)(next_random(rnd) % 3); /* at once, late, never (until the check) */
  const int sender_first = rank < partner;
  const int tag = tag_base + kase % 1000;
  unsigned char stack_area[65536 + 4096];
  struct buffer sb, rb;
  make_buffer(&sb, kind, n, rnd);
  make_buffer(&rb, kind == GLOBAL ? HEAP : kind, n, rnd);
  if (kind == STACK) {
    sb.data = stack_area;
    rb.base = rb.data = malloc(n + 1);
    rb.kind = HEAP;
  }
  if (sb.neighbour) memset(sb.neighbour, 0x5a, sb.neighbour_len);
  if (rb.neighbour) memset(rb.neighbour, 0xa5, rb.neighbour_len);
  MPI_Status st;
  fill(sb.data, n, seed + (uint64_t)rank, kase);
  if (op == 1) {
    MPI_Sendrecv(sb.data, (int)n, MPI_BYTE, partner, tag, rb.data, (int)n, MPI_BYTE, partner, tag,
                 comm, touch == 0 ? &st : MPI_STATUS_IGNORE);
  } else if (op == 2) {
    memcpy(rb.data, sb.data, n);
    MPI_Sendrecv_replace(rb.data, (int)n, MPI_BYTE, partner, tag, partner, tag, comm,
                         touch == 0 ? &st : MPI_STATUS_IGNORE);
  } else {
    const int src = op == 3 ? MPI_ANY_SOURCE : partner;
    const int rtag = op == 3 ? MPI_ANY_TAG : tag;
    MPI_Status* want = op == 4 ? &st : (op == 3 && touch == 0 ? &st : MPI_STATUS_IGNORE);
    if (sender_first) {
      MPI_Send(sb.data, (int)n, MPI_BYTE, partner, tag, comm);
      if (touch == 0 && n > 0) sb.data[0] ^= 1, sb.data[0] ^= 1; /* reuse at once */
      MPI_Recv(rb.data, (int)n, MPI_BYTE, src, rtag, comm, want);
    } else {
      MPI_Recv(rb.data, (int)n, MPI_BYTE, src, rtag, comm, want);
      if (touch == 0 && n > 0) mix(rb.data, 1);
      MPI_Send(sb.data, (int)n, MPI_BYTE, partner, tag, comm);
    }
    if (want == &st) {
      int count = -1;
      MPI_Get_count(&st, MPI_BYTE, &count);
      if (count != (int)n || st.MPI_SOURCE != partner || st.MPI_TAG != tag)
        fail("status (count, source)", count, st.MPI_SOURCE);
      mix(&count, sizeof count);
    }
  }
  if (touch == 1) compute(5);
  /* Neighbours on shared pages: touched while the transfer may be in flight. */
  if (rb.neighbour) {
    for (size_t i = 0; i < rb.neighbour_len; i++)
      if (rb.neighbour[i] != 0xa5) fail("receive neighbour changed", (long)i, rb.neighbour[i]);
    rb.neighbour[0] = 0xa5;
  }
  if (sb.neighbour) sb.neighbour[sb.neighbour_len - 1] = 0x5a;
  /* Reuse the send buffer: a write after return must not change what was sent. */
  if (n > 0) memset(sb.data, 0xee, n < 4096 ? n : 4096);
  check(rb.data, n, seed + (uint64_t)partner, kase, "received data");
  if (n > 0 && rb.data[n] != 0 && rb.kind == HEAP && 0) fail("byte after the buffer", 0, 0);
  free_buffer(&sb);
  free_buffer(&rb);
}

static void mode_random(uint64_t seed, int iterations) {
  uint64_t rnd = seed * 2654435761u + 1;
  /* Whatever the seed: one receive that is surely deferred (whole pages of its own, in
   * any build: a sanitizer's heap is not glibc's) and touched at once. */
  if ((rank ^ 1) < size) {
    const size_t n = 1 << 20;
    unsigned char* a = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (rank % 2 == 0) {
      fill(a, n, seed, -1);
      MPI_Send(a, (int)n, MPI_BYTE, rank ^ 1, 77, MPI_COMM_WORLD);
    } else {
      MPI_Recv(a, (int)n, MPI_BYTE, rank ^ 1, 77, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      check(a, n, seed, -1, "anchor");
    }
    munmap(a, n);
  }
  for (int k = 0; k < iterations; k++) run_case(seed, k, &rnd, MPI_COMM_WORLD, 0);
}

struct thread_arg {
  uint64_t seed;
  int iterations, id;
  MPI_Comm comm;
};
static void* thread_main(void* p) {
  struct thread_arg* a = p;
  uint64_t rnd = a->seed * 2654435761u + 7 + (uint64_t)a->id;
  for (int k = 0; k < a->iterations; k++)
    run_case(a->seed + (uint64_t)a->id * 1000, k, &rnd, a->comm, 0);
  return NULL;
}

static void mode_threads(uint64_t seed, int iterations) {
  /* One communicator per thread: matching stays per thread, as a correct program needs. */
  pthread_t t[2];
  struct thread_arg a[2];
  for (int i = 0; i < 2; i++) {
    a[i] = (struct thread_arg){seed, iterations, i, MPI_COMM_NULL};
    MPI_Comm_dup(MPI_COMM_WORLD, &a[i].comm);
  }
  uint64_t saved = digest;
  for (int i = 0; i < 2; i++) pthread_create(&t[i], NULL, thread_main, &a[i]);
  for (int i = 0; i < 2; i++) pthread_join(t[i], NULL);
  (void)saved;
  digest = 0; /* the threads' digests interleave at random: the checks above are the test */
  for (int i = 0; i < 2; i++) MPI_Comm_free(&a[i].comm);
}

/* ---- order: 40 messages one way, sizes mixed (eager and rendezvous), same tag ------- */
static void mode_order(void) {
  enum { N = 40 };
  const size_t sizes[4] = {8, 70000, 1 << 20, 200000};
  if (rank > 1) return;
  unsigned char* bufs[N];
  for (int i = 0; i < N; i++) bufs[i] = malloc(sizes[i % 4]);
  if (rank == 0) {
    for (int i = 0; i < N; i++) {
      fill(bufs[i], sizes[i % 4], 99, i);
      MPI_Send(bufs[i], (int)sizes[i % 4], MPI_BYTE, 1, 5, MPI_COMM_WORLD);
    }
  } else {
    for (int i = 0; i < N; i++) {
      MPI_Status st;
      MPI_Recv(bufs[i], 1 << 20, MPI_BYTE, 0, 5, MPI_COMM_WORLD, i % 3 ? MPI_STATUS_IGNORE : &st);
      if (i % 3 == 0) {
        int count;
        MPI_Get_count(&st, MPI_BYTE, &count);
        if (count != (int)sizes[i % 4]) fail("order: count", i, count);
      }
    }
    for (int i = N - 1; i >= 0; i--) check(bufs[i], sizes[i % 4], 99, i, "order");
  }
  for (int i = 0; i < N; i++) free(bufs[i]);
}

/* ---- MPI itself on buffers in flight --------------------------------------------- */
static void mode_mpi_touch(void) {
  const size_t n = 1 << 20;
  unsigned char* a = malloc(n);
  unsigned char* b = malloc(n);
  double* d = malloc(n);
  if (rank == 0) {
    fill(a, n, 1, 1);
    MPI_Send(a, (int)n, MPI_BYTE, 1, 1, MPI_COMM_WORLD);
    MPI_Recv(b, (int)n, MPI_BYTE, 1, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    check(b, n, 1, 1, "forwarded back");
  } else if (rank == 1) {
    MPI_Recv(a, (int)n, MPI_BYTE, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    /* MPI reads the buffer of a receive that may still be in flight. */
    MPI_Send(a, (int)n, MPI_BYTE, 0, 2, MPI_COMM_WORLD);
  }
  /* Nonblocking calls on buffers of transfers in flight: Isend from a received buffer,
   * Irecv into a buffer a deferred send still reads. */
  if (rank < 2 && size >= 2) {
    MPI_Request r[2];
    if (rank == 0) {
      MPI_Send(a, (int)n, MPI_BYTE, 1, 6, MPI_COMM_WORLD);
      MPI_Irecv(a, (int)n, MPI_BYTE, 1, 7, MPI_COMM_WORLD, &r[0]);
      MPI_Wait(&r[0], MPI_STATUS_IGNORE);
      check(a, n, 1, 1, "Irecv into a deferred send's buffer");
    } else {
      MPI_Recv(b, (int)n, MPI_BYTE, 0, 6, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      MPI_Isend(b, (int)n, MPI_BYTE, 0, 7, MPI_COMM_WORLD, &r[1]);
      MPI_Wait(&r[1], MPI_STATUS_IGNORE);
      check(b, n, 1, 1, "Isend from a deferred receive's buffer");
    }
  }
  /* A collective on a buffer whose receive may be in flight, and an Isend from it. */
  for (size_t i = 0; i < n / sizeof(double); i++) d[i] = rank + 1;
  if (rank == 0) MPI_Send(d, (int)(n / sizeof(double)), MPI_DOUBLE, 1, 3, MPI_COMM_WORLD);
  if (rank == 1)
    MPI_Recv(d, (int)(n / sizeof(double)), MPI_DOUBLE, 0, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  MPI_Allreduce(MPI_IN_PLACE, d, (int)(n / sizeof(double)), MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  const double expect = rank < 2 ? 2.0 * (size >= 2) + (size - 2) * 0 : 0;
  (void)expect;
  double first = d[0], last = d[n / sizeof(double) - 1];
  mix(&first, sizeof first);
  mix(&last, sizeof last);
  /* A neighbourhood collective and external packing read a buffer whose receive may be in
   * flight (calls overlap-run fences; MPICH would hold its lock while faulting on it). */
  const int peer = 1 - rank, degree = rank < 2 && size >= 2 ? 1 : 0;
  const int count = (int)(n / sizeof(double)), zero = 0;
  MPI_Comm pair;
  MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, degree, &peer, MPI_UNWEIGHTED, degree, &peer,
                                 MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &pair);
  if (rank == 0) MPI_Send(d, count, MPI_DOUBLE, 1, 4, MPI_COMM_WORLD);
  if (rank == 1) MPI_Recv(d, count, MPI_DOUBLE, 0, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  MPI_Neighbor_alltoallv(d, &count, &zero, MPI_DOUBLE, b, &count, &zero, MPI_DOUBLE, pair);
  if (degree == 1) mix(b, n);
  MPI_Comm_free(&pair);
  if (rank == 0) MPI_Send(d, count, MPI_DOUBLE, 1, 5, MPI_COMM_WORLD);
  if (rank == 1) {
    MPI_Recv(d, count, MPI_DOUBLE, 0, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Aint position = 0;
    MPI_Pack_external("external32", d, count, MPI_DOUBLE, a, (MPI_Aint)n, &position);
    mix(a, n);
  }
  /* A type without holes whose typemap is out of memory order ({int at 4, int at 0}),
   * and a message that ends inside an element: MPI fills the second int of the last
   * element only (placing the first bytes of the message in order would be wrong). */
  if (rank < 2 && size >= 2) {
    MPI_Datatype swapped;
    const int lengths[2] = {1, 1};
    const MPI_Aint displs[2] = {4, 0};
    const MPI_Datatype types[2] = {MPI_INT, MPI_INT};
    MPI_Type_create_struct(2, lengths, displs, types, &swapped);
    MPI_Type_commit(&swapped);
    enum { ELEMENTS = 1024 };
    int* ints = (int*)b;
    for (int i = 0; i < 2 * ELEMENTS; i++) ints[i] = rank == 0 ? i : -7;
    if (rank == 0) MPI_Send(ints, 2 * ELEMENTS - 1, MPI_INT, 1, 8, MPI_COMM_WORLD);
    if (rank == 1) {
      MPI_Recv(ints, ELEMENTS, swapped, 0, 8, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      if (ints[2 * ELEMENTS - 2] != -7 || ints[2 * ELEMENTS - 1] != 2 * ELEMENTS - 2 ||
          ints[0] != 1 || ints[1] != 0)
        fail("a receive with an out-of-order typemap", 0, 0);
      mix(ints, 2 * ELEMENTS * sizeof(int));
    }
    MPI_Type_free(&swapped);
  }
  free(a);
  free(b);
  free(d);
}

/* ---- io: the kernel touches buffers in flight -------------------------------------- */
static void mode_io(void) {
  const size_t n = 1 << 20;
  if (rank > 1) return;
  unsigned char* a = malloc(n);
  unsigned char* b = malloc(n);
  char path[] = "/tmp/overlap-io-XXXXXX";
  const int fd = mkstemp(path);
  if (fd < 0) fail("mkstemp", 0, 0);
  unlink(path);
  const int peer = 1 - rank;
  fill(a, n, 7, rank);
  MPI_Sendrecv(a, (int)n, MPI_BYTE, peer, 9, b, (int)n, MPI_BYTE, peer, 9, MPI_COMM_WORLD,
               MPI_STATUS_IGNORE);
  /* write() from a receive buffer in flight, read() into a send buffer in flight. */
  if (write(fd, b, n) != (ssize_t)n) fail("write from a receive buffer", (long)errno, 0);
  if (pread(fd, a, n, 0) != (ssize_t)n) fail("pread into a send buffer", (long)errno, 0);
  check(a, n, 7, peer, "read back");
  MPI_Recv(b, 0, MPI_BYTE, MPI_PROC_NULL, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  MPI_Sendrecv(a, (int)n, MPI_BYTE, peer, 10, b, (int)n, MPI_BYTE, peer, 10, MPI_COMM_WORLD,
               MPI_STATUS_IGNORE);
  lseek(fd, 0, SEEK_SET);
  FILE* f = fdopen(fd, "w+");
  if (fwrite(b, 1, n, f) != n) fail("fwrite from a receive buffer", 0, 0);
  fflush(f);
  rewind(f);
  MPI_Sendrecv(a, (int)n, MPI_BYTE, peer, 11, b, (int)n, MPI_BYTE, peer, 11, MPI_COMM_WORLD,
               MPI_STATUS_IGNORE);
  if (fread(b, 1, n, f) != n) fail("fread into a receive buffer", 0, 0);
  check(b, n, 7, rank, "fread");
  fclose(f);
  free(a);
  free(b);
}

/* ---- segv: the program's handlers keep working ------------------------------------- */
static sigjmp_buf jump;
static volatile int faults_seen;
static void own_handler(int sig, siginfo_t* info, void* ctx) {
  (void)sig;
  (void)info;
  (void)ctx;
  faults_seen++;
  siglongjmp(jump, 1);
}
static void plain_handler(int sig) {
  (void)sig;
  faults_seen += 10;
  siglongjmp(jump, 1);
}

static int crash_fd = -1;
static void reset_handler(int sig) { /* a crash handler: reports, then returns */
  (void)sig;
  const char c = 'x';
  if (write(crash_fd, &c, 1) != 1) _exit(3);
}

static void mode_segv(void) {
  const size_t n = 1 << 20;
  unsigned char* a = malloc(n);
  unsigned char* b = malloc(n);
  unsigned char* guard = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  struct sigaction sa, old;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = own_handler;
  sa.sa_flags = SA_SIGINFO;
  sigaction(SIGSEGV, &sa, &old);
  const int peer = rank ^ 1;
  if (peer < size) {
    fill(a, n, 3, rank);
    /* Transfers in flight while the program faults on its own read-only page. */
    MPI_Sendrecv(a, (int)n, MPI_BYTE, peer, 1, b, (int)n, MPI_BYTE, peer, 1, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
  }
  if (sigsetjmp(jump, 1) == 0) {
    guard[0] = 1; /* the program's own fault */
    fail("no fault on a read-only page", 0, 0);
  }
  if (faults_seen != 1) fail("SA_SIGINFO handler not called once", faults_seen, 1);
  struct sigaction now;
  sigaction(SIGSEGV, NULL, &now);
  if (now.sa_sigaction != own_handler)
    fail("sigaction() does not report the program's handler", 0, 0);
  signal(SIGSEGV, plain_handler);
  if (sigsetjmp(jump, 1) == 0) {
    guard[1] = 1;
    fail("no fault on a read-only page (signal)", 0, 0);
  }
  if (faults_seen != 11) fail("signal() handler not called", faults_seen, 11);
  if (peer < size) check(b, n, 3, peer, "segv data");
  sigaction(SIGSEGV, &old, NULL);
#ifndef __SANITIZE_ADDRESS__ /* ASan keeps its own handler whatever the program asks */
  /* With the default action, a fault of the program's own ends it by SIGSEGV. */
  const pid_t child = fork();
  if (child == 0) {
    signal(SIGSEGV, SIG_DFL);
    guard[2] = 1;
    _exit(0);
  }
  int status = 0;
  waitpid(child, &status, 0);
  if (!WIFSIGNALED(status) || WTERMSIG(status) != SIGSEGV)
    fail("SIG_DFL: no death by SIGSEGV", status, 0);
  /* A one-shot (SA_RESETHAND) crash handler that returns: it runs once, then the repeated
   * fault ends the process by SIGSEGV (before: the handler ran again and again). */
  int pipefd[2];
  if (pipe(pipefd) != 0) fail("pipe", errno, 0);
  const pid_t once = fork();
  if (once == 0) {
    close(pipefd[0]);
    crash_fd = pipefd[1];
    struct sigaction rh;
    memset(&rh, 0, sizeof rh);
    rh.sa_handler = reset_handler;
    rh.sa_flags = SA_RESETHAND;
    alarm(20); /* a handler called for ever ends by SIGALRM instead */
    sigaction(SIGSEGV, &rh, NULL);
    guard[3] = 1;
    _exit(0);
  }
  close(pipefd[1]);
  waitpid(once, &status, 0);
  char calls[64];
  const ssize_t got = read(pipefd[0], calls, sizeof calls);
  close(pipefd[0]);
  if (!WIFSIGNALED(status) || WTERMSIG(status) != SIGSEGV)
    fail("SA_RESETHAND: no death by SIGSEGV", status, 0);
  if (got != 1)
    fail("SA_RESETHAND: the handler ran a number of times other than once", (int)got, 1);
#endif
  munmap(guard, 4096);
  free(a);
  free(b);
}

/* ---- fork with a transfer in flight ------------------------------------------------- */
static void mode_fork(void) {
  const size_t n = 1 << 20;
  unsigned char* a = malloc(n);
  unsigned char* b = malloc(n);
  const int peer = rank ^ 1;
  if (peer >= size) return;
  fill(a, n, 5, rank);
  MPI_Sendrecv(a, (int)n, MPI_BYTE, peer, 1, b, (int)n, MPI_BYTE, peer, 1, MPI_COMM_WORLD,
               MPI_STATUS_IGNORE);
  const pid_t child = fork();
  if (child == 0) {
    /* The child sees the received data (fork waits for transfers in flight). */
    for (size_t i = 0; i < n; i++)
      if (b[i] != pattern(5, peer, i)) _exit(3);
    a[0] = 1; /* and may write the send buffer */
    _exit(0);
  }
  int status = 0;
  waitpid(child, &status, 0);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) fail("child of fork", status, 0);
  check(b, n, 5, peer, "fork");
  free(a);
  free(b);
}

/* ---- fence-threads: a fence waits only for what its call can observe ----------------
 * Thread A of each rank calls collectives on comm_a, thread B point-to-point on comm_b.
 * Per round, with 4 MiB messages (deferred, and needing the receiver):
 *  1. rank 0's B sends to rank 1, whose B receives only after rank 1's A has done an
 *     MPI_Allreduce with rank 0's A. Valid and fine with MPI; a fence in rank 0's
 *     Allreduce that waited for B's deferred send would deadlock. Under overlap-run A
 *     starts its Allreduce only once B's send is deferred (so the case surely arises).
 *  2. rank 0's B receives from rank 1; after it returned (a barrier), A broadcasts that
 *     very buffer as root: the fence must wait for B's deferred receive, or MPI would read
 *     pages still protected (and unfilled).
 * Only A checks and digests (after barriers), so the digest is the same in every run. */
struct fence_ctx {
  MPI_Comm comm_a, comm_b;
  pthread_barrier_t barrier;
  unsigned char *sbuf, *rbuf, *bbuf;
  size_t n;
  uint64_t seed;
  int rounds;
  atomic_int b_sent;
  long deferred_before;
};
static long (*deferred_count)(void); /* overlap_intercept_deferred, when intercepted */

static void* fence_thread_b(void* p) {
  struct fence_ctx* x = p;
  for (int k = 0; k < x->rounds; k++) {
    pthread_barrier_wait(&x->barrier); /* round start: A has read the deferred count */
    if (rank == 0) {
      fill(x->sbuf, x->n, x->seed, 2 * k);
      MPI_Send(x->sbuf, (int)x->n, MPI_BYTE, 1, k, x->comm_b);
      atomic_store(&x->b_sent, 1);
    } else {
      pthread_barrier_wait(&x->barrier); /* after rank 1's Allreduce */
      MPI_Recv(x->rbuf, (int)x->n, MPI_BYTE, 0, k, x->comm_b, MPI_STATUS_IGNORE);
    }
    pthread_barrier_wait(&x->barrier); /* part 1 done */
    if (rank == 0) {
      MPI_Recv(x->bbuf, (int)x->n, MPI_BYTE, 1, 1000 + k, x->comm_b, MPI_STATUS_IGNORE);
    } else {
      fill(x->sbuf, x->n, x->seed, 2 * k + 1);
      MPI_Send(x->sbuf, (int)x->n, MPI_BYTE, 0, 1000 + k, x->comm_b);
    }
    pthread_barrier_wait(&x->barrier); /* B's receive returned */
    pthread_barrier_wait(&x->barrier); /* round end */
  }
  return NULL;
}

static void fence_thread_a(struct fence_ctx* x) {
  for (int k = 0; k < x->rounds; k++) {
    x->deferred_before = deferred_count != NULL ? deferred_count() : 0;
    atomic_store(&x->b_sent, 0);
    pthread_barrier_wait(&x->barrier);
    if (rank == 0 && deferred_count != NULL) {
      /* Under overlap-run: until B's send is deferred (it returns at once then). */
      while (!atomic_load(&x->b_sent) && deferred_count() == x->deferred_before) sched_yield();
    }
    long mine = rank + 10L * k, sum = 0;
    MPI_Allreduce(&mine, &sum, 1, MPI_LONG, MPI_SUM, x->comm_a);
    if (sum != 1 + 20L * k) fail("fence-threads: allreduce", sum, k);
    if (rank == 1) pthread_barrier_wait(&x->barrier); /* B may receive now */
    pthread_barrier_wait(&x->barrier);               /* part 1 done */
    pthread_barrier_wait(&x->barrier);               /* rank 0: B's receive returned */
    MPI_Bcast(x->bbuf, (int)x->n, MPI_BYTE, 0, x->comm_a);
    pthread_barrier_wait(&x->barrier); /* round end: B's buffers are A's to check */
    if (rank == 1) check(x->rbuf, x->n, x->seed, 2 * k, "fence-threads: B's receive");
    check(x->bbuf, x->n, x->seed, 2 * k + 1, "fence-threads: broadcast of B's receive");
  }
}

static void mode_fence_threads(uint64_t seed, int rounds) {
  if (size != 2) fail("fence-threads runs on 2 ranks", size, 2);
  struct fence_ctx x;
  memset(&x, 0, sizeof x);
  x.n = 4 << 20;
  x.seed = seed;
  x.rounds = rounds;
  MPI_Comm_dup(MPI_COMM_WORLD, &x.comm_a);
  MPI_Comm_dup(MPI_COMM_WORLD, &x.comm_b);
  unsigned char** bufs[3] = {&x.sbuf, &x.rbuf, &x.bbuf};
  for (int i = 0; i < 3; i++) { /* page-aligned ends: deferred in place, not copied */
    *bufs[i] = mmap(NULL, x.n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (*bufs[i] == MAP_FAILED) fail("mmap", i, 0);
  }
  int (*active)(void) = (int (*)(void))dlsym(RTLD_DEFAULT, "overlap_intercept_active");
  if (active != NULL && active())
    deferred_count = (long (*)(void))dlsym(RTLD_DEFAULT, "overlap_intercept_deferred");
  pthread_barrier_init(&x.barrier, NULL, 2);
  pthread_t b;
  pthread_create(&b, NULL, fence_thread_b, &x);
  fence_thread_a(&x);
  pthread_join(b, NULL);
  pthread_barrier_destroy(&x.barrier);
  for (int i = 0; i < 3; i++) munmap(*bufs[i], x.n);
  MPI_Comm_free(&x.comm_a);
  MPI_Comm_free(&x.comm_b);
}

/* ---- place: receives whose pages are moved into place, then copied --------------------
 * (docs/overlap-run.md, "Placing received data"). Rank 0 sends, rank 1 receives into a
 * buffer longer than the message, prefilled: the message's bytes must arrive and every
 * other byte keep its value (a heap block's header too: free() would abort). */
static void place_one(unsigned char* buf, size_t cap, size_t n, uint64_t seed, int kase,
                      int late) {
  if (rank == 0) {
    unsigned char* out = malloc(n);
    fill(out, n, seed, kase);
    MPI_Send(out, (int)n, MPI_BYTE, 1, 20, MPI_COMM_WORLD);
    free(out);
  } else if (rank == 1) {
    memset(buf, 0x5a, cap);
    MPI_Recv(buf, (int)cap, MPI_BYTE, 0, 20, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    if (late) compute(20);
    check(buf, n, seed, kase, "place");
    for (size_t i = n; i < cap; i++) {
      if (buf[i] != 0x5a) fail("place: a byte past the message changed", kase, (long)i);
    }
  }
}

/* How many mappings overlap [lo, hi), and whether the one at lo has MADV_WIPEONFORK. */
static void mapping_facts(uintptr_t lo, uintptr_t hi, int* count, int* wipe) {
  FILE* f = fopen("/proc/self/smaps", "r");
  if (f == NULL) fail("place: cannot read /proc/self/smaps", 0, 0);
  char line[512];
  int at_lo = 0;
  *count = *wipe = 0;
  while (fgets(line, sizeof line, f) != NULL) {
    unsigned long a = 0, b = 0;
    if (sscanf(line, "%lx-%lx ", &a, &b) == 2) {
      if (a < hi && lo < b) (*count)++;
      at_lo = a <= lo && lo < b;
    } else if (at_lo && strncmp(line, "VmFlags:", 8) == 0 && strstr(line, " wf") != NULL) {
      *wipe = 1;
    }
  }
  fclose(f);
}

/* ---- io_uring by raw system calls (no liburing: the layer must not know it is there) -- */
struct ring {
  int fd;
  size_t sq_len;
  unsigned char *sq, *cq;
  struct io_uring_sqe* sqes;
  struct io_uring_params p;
};

/* A ring with `buf` registered as fixed buffer 0 (its pages pinned); 0, or -1 where the
 * kernel has no io_uring for us (then the case is skipped). */
static int ring_open(struct ring* r, void* buf, size_t len) {
  memset(r, 0, sizeof *r);
  r->fd = (int)syscall(SYS_io_uring_setup, 1, &r->p);
  if (r->fd < 0) return -1;
  r->sq_len = r->p.sq_off.array + r->p.sq_entries * sizeof(unsigned);
  const size_t cq_len = r->p.cq_off.cqes + r->p.cq_entries * sizeof(struct io_uring_cqe);
  if (r->sq_len < cq_len) r->sq_len = cq_len; /* one mapping serves both */
  if (!(r->p.features & IORING_FEAT_SINGLE_MMAP)) return -1;
  r->sq = mmap(NULL, r->sq_len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, r->fd,
               IORING_OFF_SQ_RING);
  r->sqes = mmap(NULL, r->p.sq_entries * sizeof(struct io_uring_sqe), PROT_READ | PROT_WRITE,
                 MAP_SHARED | MAP_POPULATE, r->fd, IORING_OFF_SQES);
  if (r->sq == MAP_FAILED || r->sqes == MAP_FAILED) return -1;
  r->cq = r->sq;
  struct iovec iov = {buf, len};
  return syscall(SYS_io_uring_register, r->fd, IORING_REGISTER_BUFFERS, &iov, 1) == 0 ? 0 : -1;
}

/* Writes fixed buffer 0 ([buf, buf + len)) to fd at offset 0 through the ring; its result. */
static int ring_write_fixed(struct ring* r, int fd, void* buf, size_t len) {
  unsigned* tail = (unsigned*)(r->sq + r->p.sq_off.tail);
  const unsigned mask = *(unsigned*)(r->sq + r->p.sq_off.ring_mask);
  const unsigned t = *tail, i = t & mask;
  struct io_uring_sqe* e = &r->sqes[i];
  memset(e, 0, sizeof *e);
  e->opcode = IORING_OP_WRITE_FIXED;
  e->fd = fd;
  e->addr = (uintptr_t)buf;
  e->len = (unsigned)len;
  e->buf_index = 0;
  ((unsigned*)(r->sq + r->p.sq_off.array))[i] = i;
  __atomic_store_n(tail, t + 1, __ATOMIC_RELEASE);
  if (syscall(SYS_io_uring_enter, r->fd, 1, 1, IORING_ENTER_GETEVENTS, NULL, 0) < 0) return -1;
  const unsigned head = __atomic_load_n((unsigned*)(r->cq + r->p.cq_off.head), __ATOMIC_ACQUIRE);
  const unsigned cmask = *(unsigned*)(r->cq + r->p.cq_off.ring_mask);
  const struct io_uring_cqe* c = (const struct io_uring_cqe*)(r->cq + r->p.cq_off.cqes);
  const int res = c[head & cmask].res;
  __atomic_store_n((unsigned*)(r->cq + r->p.cq_off.head), head + 1, __ATOMIC_RELEASE);
  return res;
}

static long pinned_kib(void) {
  FILE* f = fopen("/proc/self/status", "r");
  char line[256];
  long kib = 0;
  while (f != NULL && fgets(line, sizeof line, f) != NULL) {
    if (strncmp(line, "VmPin:", 6) == 0) kib = atol(line + 6);
  }
  if (f != NULL) fclose(f);
  return kib;
}

/* A receive into pages io_uring holds pinned as a fixed buffer: the kernel's writes from
 * that buffer must see the message (had the pages been moved, the pinned ones would be
 * the next internal buffer's). Rank 1 only; skipped where io_uring is not available. */
static void place_pinned(uint64_t seed) {
  const size_t len = (size_t)1 << 20;
  unsigned char* buf = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (buf == MAP_FAILED) fail("place: mmap", 0, 0);
  memset(buf, 0x5a, len);
  struct ring r;
  const int have_ring = rank == 1 && ring_open(&r, buf, len) == 0;
  place_one(buf, len, len, seed, 1003, 0);
  if (have_ring) {
    const int out = (int)syscall(SYS_memfd_create, "place-pinned", 0);
    unsigned char head[64];
    if (out < 0 || ring_write_fixed(&r, out, buf, len) != (int)len ||
        pread(out, head, sizeof head, 0) != (ssize_t)sizeof head) {
      fail("place: io_uring WRITE_FIXED of the receive buffer", 1003, 0);
    }
    if (memcmp(head, buf, sizeof head) != 0) {
      fail("place: the pinned pages do not hold the message (pages moved from under io_uring)",
           1003, 0);
    }
    fprintf(stderr, "place: pinned pages (io_uring fixed buffer) checked\n");
    close(out);
    /* The ring (and the pin) goes when its mappings and file are gone, asynchronously:
     * wait until nothing is pinned, so that later receives may be moved again. */
    munmap(r.sq, r.sq_len);
    munmap(r.sqes, r.p.sq_entries * sizeof(struct io_uring_sqe));
    close(r.fd);
    for (int i = 0; i < 200 && pinned_kib() != 0; i++) usleep(5000);
  }
  munmap(buf, len);
}

/* Receives a move would change more than the data of: into pages with lasting advice
 * (the mapping a move replaces would take it along), and into part of a larger mapping
 * (a move would split it). Both must be copied: the advice stays, the mapping stays one. */
static void place_kept_mappings(uint64_t seed, size_t page) {
  const size_t len = (size_t)1 << 20;
  unsigned char* advised = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
                                -1, 0);
  if (advised == MAP_FAILED || madvise(advised, len, MADV_WIPEONFORK) != 0) {
    fail("place: mmap/madvise(MADV_WIPEONFORK)", 0, 0);
  }
  place_one(advised, len, len, seed, 1000, 1);
  int count = 0, wipe = 0;
  mapping_facts((uintptr_t)advised, (uintptr_t)advised + len, &count, &wipe);
  if (rank == 1 && !wipe) fail("place: the buffer lost its MADV_WIPEONFORK advice", 1000, 0);
  munmap(advised, len);
  unsigned char* region = mmap(NULL, 4 * len, PROT_READ | PROT_WRITE,
                               MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (region == MAP_FAILED) fail("place: mmap", 0, 0);
  memset(region, 0x5a, 4 * len);
  place_one(region + len, len, len - page / 2, seed, 1001, 0);
  mapping_facts((uintptr_t)region, (uintptr_t)region + 4 * len, &count, &wipe);
  if (rank == 1 && count != 1) fail("place: a receive split its buffer's mapping", 1001, count);
  for (size_t i = 0; i < len; i++) {
    if (region[i] != 0x5a || region[3 * len + i] != 0x5a) fail("place: a neighbour changed", 1001, (long)i);
  }
  munmap(region, 4 * len);
  /* A mapping the program split with mprotect: its first half is a whole kernel mapping
   * for a while, but not one the program made. Moved into, it would stay apart for good,
   * and growing the whole region with mremap would fail. */
  region = mmap(NULL, 2 * len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (region == MAP_FAILED || mprotect(region + len, len, PROT_READ) != 0) fail("place: mmap", 0, 0);
  place_one(region, len, len, seed, 1002, 0);
  mprotect(region + len, len, PROT_READ | PROT_WRITE);
  unsigned char* grown = mremap(region, 2 * len, 4 * len, MREMAP_MAYMOVE);
  if (rank == 1 && grown == MAP_FAILED) fail("place: a receive kept a split mapping apart", 1002, errno);
  munmap(grown == MAP_FAILED ? region : grown, grown == MAP_FAILED ? 2 * len : 4 * len);
}

/* UCX's memory hooks must see what glibc unmaps itself (free() of a large block), as in a
 * run without overlap-run, whose shim UCX's hooks may patch instead of libc
 * (docs/overlap-run.md, "UCX's memory hooks"). Counted into the digest: the plain and the
 * intercepted run must agree. Nothing where UCX is not loaded. */
static uintptr_t freed_block;
static int freed_seen;
static void on_ucx_unmapped(int type, void* event, void* arg) {
  (void)type;
  (void)arg;
  if (*(void**)event == (void*)freed_block) freed_seen++; /* {address, size} */
}

static void place_ucx_hooks(void) {
  int (*set)(int, int, void (*)(int, void*, void*), void*) =
      (int (*)(int, int, void (*)(int, void*, void*), void*))dlsym(RTLD_DEFAULT,
                                                                   "ucm_set_event_handler");
  if (set == NULL || set(1 << 17 /* VM_UNMAPPED */, 0, on_ucx_unmapped, NULL) != 0) return;
  for (int i = 0; i < 4; i++) {
    char* p = malloc((size_t)8 << 20); /* above the mmap threshold: its own mapping */
    memset(p, i, (size_t)8 << 20);
    freed_block = (uintptr_t)p - 16; /* the mapping starts at the block's header */
    free(p);
  }
  mix(&freed_seen, sizeof freed_seen);
}

static void mode_place(uint64_t seed, int iterations) {
  mallopt(M_MMAP_THRESHOLD, 128 * 1024); /* large blocks come from mmap, header and all */
  const size_t page = (size_t)sysconf(_SC_PAGESIZE);
  place_kept_mappings(seed, page);
  place_pinned(seed);
  place_ucx_hooks();
  for (int it = 0; it < iterations; it++) {
    if (it == iterations / 2) {
      void* mem = NULL;
      MPI_Alloc_mem(4096, MPI_INFO_NULL, &mem);
      MPI_Free_mem(mem);
    }
    const size_t n = (size_t)(1 << 20) + (size_t)(it * 7919) % (3 * page) + 1;
    const size_t cap = n + (size_t)(it * 104729) % (2 * page);
    unsigned char* block = malloc(cap);
    place_one(block, cap, n, seed, 2 * it, it % 2);
    free(block);
    const size_t len = (n + page - 1) / page * page;
    unsigned char* mapped = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
                                 -1, 0);
    place_one(mapped, len, n - (size_t)it % 2 * 100, seed, 2 * it + 1, (it + 1) % 2);
    munmap(mapped, len);
  }
}

/* ---- touchline: the report must name these two lines -------------------------------- */
static void mode_touchline(void) {
  const size_t n = 2 << 20;
  unsigned char* a = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (rank == 0) {
    fill(a, n, 11, 0);
    MPI_Send(a, (int)n, MPI_BYTE, 1, 4, MPI_COMM_WORLD);
  } else if (rank == 1) {
    MPI_Recv(a, (int)n, MPI_BYTE, 0, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE); /* RECV-LINE */
    const unsigned char first = a[n / 2];                                   /* TOUCH-LINE */
    mix(&first, 1);
    check(a, n, 11, 0, "touchline");
  }
  munmap(a, n);
}

/* ---- counts: the report's per-site counts of calls that go straight to MPI --------------
 * (check_intercept.py counts: the same with the shim serving them and with the core). */
static void mode_counts(void) {
  int small[256], back[256];
  MPI_Datatype quad;
  MPI_Type_contiguous(64, MPI_INT, &quad);
  MPI_Type_commit(&quad);
  int* heap = malloc(sizeof small);
  for (int i = 0; i < 256; i++) small[i] = i;
  for (int i = 0; i < 50 && rank <= 1; i++) {
    if (rank == 0) {
      MPI_Send(small, 256, MPI_INT, 1, 7, MPI_COMM_WORLD);                 /* SEND-SMALL */
      MPI_Recv(back, 256, MPI_INT, 1, 8, MPI_COMM_WORLD, MPI_STATUS_IGNORE); /* RECV-SMALL */
      if (back[i % 256] != i % 256 + 1) fail("counts: reply", back[i % 256], i % 256 + 1);
      if (i < 7) MPI_Send(small, 256, MPI_INT, MPI_PROC_NULL, 7, MPI_COMM_WORLD); /* SEND-NULL */
      if (i < 10) MPI_Send(small, 1, quad, 1, 9, MPI_COMM_WORLD);                 /* SEND-QUAD */
    } else {
      MPI_Status st;
      MPI_Recv(heap, 256, MPI_INT, MPI_ANY_SOURCE, 7, MPI_COMM_WORLD, &st); /* RECV-WILD */
      if (st.MPI_SOURCE != 0) fail("counts: source", st.MPI_SOURCE, 0);
      for (int k = 0; k < 256; k++) back[k] = heap[k] + 1;
      MPI_Send(back, 256, MPI_INT, 0, 8, MPI_COMM_WORLD); /* SEND-BACK */
      if (i < 10) MPI_Recv(heap, 256, MPI_BYTE, 0, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE); /* RECV-QUAD */
    }
  }
  mix(back, sizeof back);
  free(heap);
  MPI_Type_free(&quad);
}

int main(int argc, char** argv) {
  const char* mode = argc > 1 ? argv[1] : "random";
  const int threads = strcmp(mode, "threads") == 0;
  const int fence_threads = strcmp(mode, "fence-threads") == 0;
  threaded = threads;
  int provided = 0;
  MPI_Init_thread(&argc, &argv, threads || fence_threads ? MPI_THREAD_MULTIPLE : MPI_THREAD_SINGLE,
                  &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if ((threads || fence_threads) && provided < MPI_THREAD_MULTIPLE)
    fail("MPI_THREAD_MULTIPLE not provided", provided, 0);
  int queried = -1;
  MPI_Query_thread(&queried);
  if (queried != provided) fail("MPI_Query_thread differs from MPI_Init_thread", queried, provided);
  const uint64_t seed = argc > 2 ? strtoull(argv[2], NULL, 10) : 1;
  const int iterations = argc > 3 ? atoi(argv[3]) : 20;
  if (rank == 0)
    printf("mode %s seed %llu iterations %d ranks %d\n", mode, (unsigned long long)seed, iterations,
           size);
  if (strcmp(mode, "random") == 0)
    mode_random(seed, iterations);
  else if (threads)
    mode_threads(seed, iterations);
  else if (fence_threads)
    mode_fence_threads(seed, iterations);
  else if (strcmp(mode, "order") == 0)
    mode_order();
  else if (strcmp(mode, "mpi-touch") == 0)
    mode_mpi_touch();
  else if (strcmp(mode, "io") == 0)
    mode_io();
  else if (strcmp(mode, "segv") == 0)
    mode_segv();
  else if (strcmp(mode, "fork") == 0)
    mode_fork();
  else if (strcmp(mode, "touchline") == 0)
    mode_touchline();
  else if (strcmp(mode, "place") == 0)
    mode_place(seed, iterations);
  else if (strcmp(mode, "counts") == 0)
    mode_counts();
  else
    fail("unknown mode", 0, 0);
  MPI_Barrier(MPI_COMM_WORLD);
  printf("rank %d digest %016llx\n", rank, (unsigned long long)digest);
  fflush(stdout);
  MPI_Finalize();
  return 0;
}
