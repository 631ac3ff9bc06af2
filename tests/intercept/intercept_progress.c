/* overlap-run gives the program's own nonblocking requests background progress (issue 25):
 * a causal check per kind of request. In each pair the watcher posts its request, sends
 * its partner a zero-byte token, and from then on makes no MPI call at all while it watches
 * the last bytes of its receive buffer (volatile reads) until the data are there; the
 * partner waits for the token and 50 ms more, then posts its side and waits in MPI.
 * Neither MPI here places a 4 MiB message (rendezvous, or a pipeline) without the
 * receiver's own progress, so without background progress the watch ends only at its
 * limit: the watcher then prints "NOT MOVED <kind> ..." and, after every kind ran, the
 * program exits 1. Run plain, it is the control (check_intercept.py prints what it says).
 *
 *   intercept-progress LIMIT_SECONDS
 *
 * Kinds, each in both directions: irecv (MPI_Irecv), persistent (MPI_Recv_init and
 * MPI_Start), ibcast (MPI's own MPI_Ibcast on the pair's communicator, the partner the
 * root), ialltoall (MPI's own, 4 MiB blocks). Every byte is checked after the wait.
 * Ranks pair up 0-1, 2-3, ...; an odd last rank only joins the barriers.
 *
 * Then three things overlap-run must keep as MPI has them:
 *  - userop: an MPI_Iallreduce with the program's own operation, in this program given
 *    MPI_THREAD_SINGLE, while the program computes without MPI calls: the operation must
 *    run on the program's thread only (the engine must not drive MPI for it);
 *  - pmpi: an MPI_Irecv the program completes with PMPI_Wait, past overlap-run; a blocking
 *    MPI_Recv into the same buffer afterwards (check_intercept.py: the report shows it
 *    deferred, i.e. the buffer no longer counted as held by a pending request);
 *  - an MPI_Ibarrier (counted among the program's requests in the report).
 * Prints "rank R PASS" when every watch saw the data arrive and all of the above held. */
#include <mpi.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

enum { BYTES = 4 << 20, TOKEN = 7, DATA = 8 };
enum { IRECV, PERSISTENT, IBCAST, IALLTOALL, NKINDS };
static const char* const kind_names[NKINDS] = {"irecv", "persistent", "ibcast", "ialltoall"};

static int rank, size;
static double limit_s;

static unsigned char pattern(int src, size_t i, int round) {
  return (unsigned char)(src * 131 + i * 7 + round * 13 + 1);
}

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* No MPI call in here: only background progress can end it before the limit. */
static int watch(const unsigned char* buf, size_t len, int src, int round) {
  const volatile unsigned char* last = buf + len - 16;
  const double until = now() + limit_s;
  while (last[0] != pattern(src, len - 16, round) || last[15] != pattern(src, len - 1, round)) {
    if (now() > until) return 0;
    sched_yield();
  }
  return 1;
}

/* The watcher's side: post, token, watch, wait. Returns 1 when the data arrived in time. */
static int watcher(int kind, int peer, MPI_Comm pair, unsigned char* out, unsigned char* in,
                   int round) {
  MPI_Request r = MPI_REQUEST_NULL;
  size_t len = BYTES; /* what arrives: the block from the partner */
  unsigned char* got = in;
  switch (kind) {
    case IRECV:
      MPI_Irecv(in, BYTES, MPI_BYTE, peer, DATA, MPI_COMM_WORLD, &r);
      break;
    case PERSISTENT:
      MPI_Recv_init(in, BYTES, MPI_BYTE, peer, DATA, MPI_COMM_WORLD, &r);
      MPI_Start(&r);
      break;
    case IBCAST:
      MPI_Ibcast(in, BYTES, MPI_BYTE, peer % 2, pair, &r); /* the partner's rank in pair */
      break;
    default: {
      int me;
      MPI_Comm_rank(pair, &me);
      MPI_Ialltoall(out, BYTES, MPI_BYTE, in, BYTES, MPI_BYTE, pair, &r);
      got = in + (size_t)(1 - me) * BYTES;
    }
  }
  MPI_Send(NULL, 0, MPI_BYTE, peer, TOKEN, MPI_COMM_WORLD);
  const int moved = watch(got, len, peer, round);
  if (!moved)
    printf("rank %d NOT MOVED %s round %d: no byte arrived in %.1f s without MPI calls\n", rank,
           kind_names[kind], round, limit_s);
  MPI_Status st;
  MPI_Wait(&r, &st);
  if (kind == PERSISTENT) MPI_Request_free(&r);
  for (size_t i = 0; i < len; ++i) {
    if (got[i] != pattern(peer, i, round)) {
      printf("rank %d FAIL %s round %d: byte %zu is %d, sent %d\n", rank, kind_names[kind], round,
             i, got[i], pattern(peer, i, round));
      MPI_Abort(MPI_COMM_WORLD, 3);
    }
  }
  return moved;
}

/* The partner's side: token, 50 ms, post, wait. */
static void partner(int kind, int peer, MPI_Comm pair, unsigned char* out, unsigned char* in,
                    int round) {
  for (size_t i = 0; i < BYTES; ++i) out[i] = pattern(rank, i, round);
  MPI_Recv(NULL, 0, MPI_BYTE, peer, TOKEN, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  usleep(50000);
  MPI_Request r = MPI_REQUEST_NULL;
  int me;
  MPI_Comm_rank(pair, &me);
  switch (kind) {
    case IRECV:
    case PERSISTENT:
      MPI_Isend(out, BYTES, MPI_BYTE, peer, DATA, MPI_COMM_WORLD, &r);
      break;
    case IBCAST:
      MPI_Ibcast(out, BYTES, MPI_BYTE, me, pair, &r);
      break;
    default: {
      /* Both blocks hold this rank's pattern; the watcher checks the one sent to it. */
      unsigned char* blocks = malloc(2 * (size_t)BYTES);
      memcpy(blocks, out, BYTES);
      memcpy(blocks + BYTES, out, BYTES);
      MPI_Ialltoall(blocks, BYTES, MPI_BYTE, in, BYTES, MPI_BYTE, pair, &r);
      MPI_Wait(&r, MPI_STATUS_IGNORE);
      free(blocks);
      return;
    }
  }
  MPI_Wait(&r, MPI_STATUS_IGNORE);
}

/* ---- userop ------------------------------------------------------------------------- */
static pthread_t main_thread;
static atomic_int op_calls, op_elsewhere;

static void add_ints(void* in, void* inout, int* len, MPI_Datatype* type) {
  (void)type;
  atomic_fetch_add(&op_calls, 1);
  if (!pthread_equal(pthread_self(), main_thread)) atomic_fetch_add(&op_elsewhere, 1);
  const int* a = in;
  int* b = inout;
  for (int i = 0; i < *len; ++i) b[i] += a[i];
}

static int user_op_stays_home(void) {
  enum { N = 1 << 20 };
  int* send = malloc(N * sizeof(int));
  int* recv = malloc(N * sizeof(int));
  for (int i = 0; i < N; ++i) send[i] = rank + i % 7;
  MPI_Op op;
  MPI_Op_create(add_ints, 1, &op);
  MPI_Request r;
  MPI_Iallreduce(send, recv, N, MPI_INT, op, MPI_COMM_WORLD, &r);
  const double until = now() + 0.3; /* computing, no MPI call */
  while (now() < until) sched_yield();
  MPI_Wait(&r, MPI_STATUS_IGNORE);
  MPI_Op_free(&op);
  int ok = 1;
  for (int i = 0; i < N && ok; ++i)
    ok = recv[i] == size * (size - 1) / 2 + size * (i % 7);
  if (!ok) printf("rank %d FAIL userop: wrong sum\n", rank);
  if (atomic_load(&op_elsewhere) > 0)
    printf("rank %d FAIL userop: the program's operation ran on another thread %d of %d times\n",
           rank, atomic_load(&op_elsewhere), atomic_load(&op_calls));
  free(send);
  free(recv);
  return ok && atomic_load(&op_elsewhere) == 0;
}

/* ---- pmpi: a receive completed past overlap-run, then a blocking one into the buffer --- */
static void completed_past_overlap_run(int peer) {
  enum { LEN = 1 << 20 };
  unsigned char* buf = NULL;
  if (posix_memalign((void**)&buf, 4096, LEN) != 0) MPI_Abort(MPI_COMM_WORLD, 4);
  memset(buf, 1, LEN);
  if (rank % 2 == 0) {
    MPI_Request r;
    MPI_Irecv(buf, LEN, MPI_BYTE, peer, DATA, MPI_COMM_WORLD, &r);
    PMPI_Wait(&r, MPI_STATUS_IGNORE);
    MPI_Recv(buf, LEN, MPI_BYTE, peer, DATA + 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    if (buf[LEN - 1] != 2) printf("rank %d FAIL pmpi: byte %d\n", rank, buf[LEN - 1]);
  } else {
    memset(buf, 2, LEN);
    MPI_Send(buf, LEN, MPI_BYTE, peer, DATA, MPI_COMM_WORLD);
    MPI_Send(buf, LEN, MPI_BYTE, peer, DATA + 1, MPI_COMM_WORLD);
  }
  free(buf);
}

int main(int argc, char** argv) {
  main_thread = pthread_self();
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  limit_s = argc > 1 ? atof(argv[1]) : 60.0;
  const int peer = (rank ^ 1) < size ? rank ^ 1 : -1;
  MPI_Comm pair;
  MPI_Comm_split(MPI_COMM_WORLD, peer < 0 ? MPI_UNDEFINED : rank / 2, rank, &pair);
  unsigned char* out = malloc(2 * (size_t)BYTES);
  unsigned char* in = malloc(2 * (size_t)BYTES);
  int missed = 0;
  for (int kind = 0; kind < NKINDS; ++kind) {
    for (int round = 0; round < 2; ++round) {
      if (peer >= 0) {
        memset(in, 0, 2 * (size_t)BYTES);
        if (rank % 2 == round) {
          for (size_t i = 0; i < 2 * (size_t)BYTES; ++i) out[i] = pattern(rank, i % BYTES, round);
          missed += !watcher(kind, peer, pair, out, in, round);
        } else {
          partner(kind, peer, pair, out, in, round);
        }
      }
      MPI_Barrier(MPI_COMM_WORLD);
    }
  }
  missed += !user_op_stays_home();
  if (peer >= 0) completed_past_overlap_run(peer);
  MPI_Request barrier;
  MPI_Ibarrier(MPI_COMM_WORLD, &barrier);
  MPI_Wait(&barrier, MPI_STATUS_IGNORE);
  if (pair != MPI_COMM_NULL) MPI_Comm_free(&pair);
  free(out);
  free(in);
  if (missed == 0) printf("rank %d PASS\n", rank);
  fflush(stdout);
  MPI_Finalize();
  return missed == 0 ? 0 : 1;
}
