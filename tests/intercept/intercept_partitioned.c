/* A partitioned program written against MPI's own MPI-4 API, as a user would write it, run
 * plain and under overlap-run (check_partitioned.py). 2 ranks: rank 0 sends, rank 1
 * receives. MPICH only (Open MPI 4.1 has no MPI_Psend_init). Modes:
 *   cases SEED N    randomised cases: 1..64 partitions on each side (different counts),
 *                   0 to 4 MiB, 1..3 epochs on the same requests, Pready / Pready_range /
 *                   Pready_list from 1..4 threads in random order, Parrived polling (a
 *                   partition reported arrived must hold its data), MPI_Startall of the
 *                   partitioned request with an ordinary persistent one, an ordinary
 *                   Isend/Irecv beside them, completed with one of Wait, Waitall, Waitany,
 *                   Waitsome, Test, Testall, Testany, Testsome, Request_get_status; the
 *                   inactive request answered as MPI does (Wait at once, with an empty
 *                   status when "strict", Test and Request_get_status set flag,
 *                   Waitany/Waitsome skip it); the receive's status (source, tag, count);
 * Request_free. Each rank prints "rank R digest HEX" over all it received and the statuses, and
 * checks every byte itself. early FILE SEC  partition 0 must arrive (Parrived true, its data right)
 * while the sender, having readied only partition 0, makes no MPI call and waits up to SEC seconds
 * for FILE, which the receiver creates once it saw it. errors          (under overlap-run) each
 * misuse returns an MPI error whose string names the value, through MPI_ERRORS_RETURN. filled
 * the sender fills each partition with a blocking MPI_Recv (deferred under overlap-run: its
 * pages no-access) and marks it ready right after; the layer must not read the partition
 * before the receive completed. Prints PASS
 * per rank, or FAIL lines and exits 1. */
#define _GNU_SOURCE
#include <mpi.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static int failures;
static int rank;

#define CHECK(cond, ...)                       \
  do {                                         \
    if (!(cond)) {                             \
      fprintf(stdout, "FAIL rank %d: ", rank); \
      fprintf(stdout, __VA_ARGS__);            \
      fprintf(stdout, "\n");                   \
      fflush(stdout);                          \
      failures++;                              \
    }                                          \
  } while (0)

static uint64_t mix(uint64_t x) {
  x += 0x9E3779B97F4A7C15ULL;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
  return x ^ (x >> 31);
}

static uint64_t next(uint64_t* state) { return mix((*state)++); }
static int below(uint64_t* state, int n) { return (int)(next(state) % (uint64_t)n); }

static int value(uint64_t seed, int c, int epoch, long long i) {
  return (int)(uint32_t)mix(seed ^ ((uint64_t)c << 48) ^ ((uint64_t)epoch << 40) ^ (uint64_t)i);
}

static uint64_t digest = 1469598103934665603ULL;
static void fold(const void* p, size_t n) {
  const unsigned char* b = p;
  for (size_t i = 0; i < n; i++) digest = (digest ^ b[i]) * 1099511628211ULL;
}

/* An empty status (MPI 4.0 sec. 3.7.3): what MPI returns for an inactive request. Checked
 * only when asked ("strict"): MPICH 4.0.2's own partitioned requests leave the status as it
 * was (source and tag of the last epoch), so plain runs cannot pass it. */
static int strict_inactive;
static void check_empty(const MPI_Status* st, const char* what) {
  if (!strict_inactive) return;
  int count = -1;
  MPI_Get_count(st, MPI_INT, &count);
  CHECK(st->MPI_SOURCE == MPI_ANY_SOURCE && st->MPI_TAG == MPI_ANY_TAG && count == 0,
        "%s: status of an inactive request is source %d tag %d count %d, not empty", what,
        st->MPI_SOURCE, st->MPI_TAG, count);
}

/* The inactive partitioned request, as MPI answers for it. */
static void check_inactive(MPI_Request* req, const char* when) {
  MPI_Request before = *req;
  MPI_Status st;
  MPI_Wait(req, &st);
  CHECK(*req == before, "%s: MPI_Wait changed an inactive persistent request's handle", when);
  check_empty(&st, when);
  int flag = 0;
  MPI_Test(req, &flag, &st);
  CHECK(flag == 1 && *req == before, "%s: MPI_Test on an inactive request: flag %d", when, flag);
  flag = 0;
  MPI_Request_get_status(*req, &flag, &st);
  CHECK(flag == 1, "%s: MPI_Request_get_status on an inactive request: flag 0", when);
  check_empty(&st, when);
}

/* ---- sender threads ---------------------------------------------------------------- */

struct Readier {
  MPI_Request req;
  int first, last; /* this thread's partitions [first, last) */
  uint64_t rng;
};

static void* ready_block(void* arg) {
  struct Readier* r = arg;
  int n = r->last - r->first;
  if (n <= 0) return NULL;
  /* Cut the block into segments, each readied one way, the segments in random order. */
  int* starts = malloc(sizeof(int) * (size_t)n);
  int* lens = malloc(sizeof(int) * (size_t)n);
  int segs = 0;
  for (int p = r->first; p < r->last;) {
    int len = 1 + below(&r->rng, 4);
    if (p + len > r->last) len = r->last - p;
    starts[segs] = p;
    lens[segs++] = len;
    p += len;
  }
  for (int i = segs - 1; i > 0; i--) {
    int j = below(&r->rng, i + 1);
    int ts = starts[i], tl = lens[i];
    starts[i] = starts[j], lens[i] = lens[j];
    starts[j] = ts, lens[j] = tl;
  }
  for (int s = 0; s < segs; s++) {
    int how = below(&r->rng, 3);
    int rc = MPI_SUCCESS;
    if (how == 0 && lens[s] > 1) {
      rc = MPI_Pready_range(starts[s], starts[s] + lens[s] - 1, r->req);
    } else if (how == 1) {
      int list[4];
      for (int k = 0; k < lens[s]; k++) list[k] = starts[s] + lens[s] - 1 - k;
      rc = MPI_Pready_list(lens[s], list, r->req);
    } else {
      for (int k = 0; k < lens[s] && rc == MPI_SUCCESS; k++) rc = MPI_Pready(starts[s] + k, r->req);
    }
    CHECK(rc == MPI_SUCCESS, "Pready of partitions %d..%d failed", starts[s],
          starts[s] + lens[s] - 1);
  }
  free(starts);
  free(lens);
  return NULL;
}

static void ready_all(MPI_Request req, int partitions, int threads, uint64_t* rng) {
  pthread_t tid[4];
  struct Readier rd[4];
  for (int t = 0; t < threads; t++) {
    rd[t].req = req;
    rd[t].first = (int)((long long)partitions * t / threads);
    rd[t].last = (int)((long long)partitions * (t + 1) / threads);
    rd[t].rng = next(rng);
    pthread_create(&tid[t], NULL, ready_block, &rd[t]);
  }
  for (int t = 0; t < threads; t++) pthread_join(tid[t], NULL);
}

/* ---- completion ------------------------------------------------------------------------ */

enum {
  kWait,
  kWaitall,
  kWaitany,
  kWaitsome,
  kTest,
  kTestall,
  kTestany,
  kTestsome,
  kGetStatus,
  kModes
};
static const char* const mode_names[kModes] = {"Wait",     "Waitall",  "Waitany",
                                               "Waitsome", "Test",     "Testall",
                                               "Testany",  "Testsome", "Request_get_status"};

/* Completes reqs[0..n) (all active), with `mode`; *part gets reqs[0]'s status. */
static void complete(int mode, MPI_Request* reqs, int n, MPI_Status* part) {
  MPI_Status sts[3];
  int done[3] = {0, 0, 0}, left = n, flag = 0, index = -1, out = 0, idx[3];
  switch (mode) {
    case kWait:
      for (int i = 0; i < n; i++) MPI_Wait(&reqs[i], i == 0 ? part : MPI_STATUS_IGNORE);
      return;
    case kWaitall:
      MPI_Waitall(n, reqs, sts);
      *part = sts[0];
      return;
    case kGetStatus:
      while (!flag) MPI_Request_get_status(reqs[0], &flag, part);
      MPI_Waitall(n, reqs, sts);
      CHECK(rank == 0 || (sts[0].MPI_SOURCE == part->MPI_SOURCE && sts[0].MPI_TAG == part->MPI_TAG),
            "Request_get_status and Waitall disagree on the partitioned receive's status");
      return;
    case kTestall:
      while (!flag) MPI_Testall(n, reqs, &flag, sts);
      *part = sts[0];
      return;
    case kTest:
      while (left > 0)
        for (int i = 0; i < n; i++) {
          if (done[i]) continue;
          MPI_Test(&reqs[i], &flag, i == 0 ? part : MPI_STATUS_IGNORE);
          if (flag) done[i] = 1, left--;
        }
      return;
    case kWaitany:
    case kTestany:
      while (left > 0) {
        MPI_Status st;
        if (mode == kWaitany) {
          MPI_Waitany(n, reqs, &index, &st);
          flag = 1;
        } else {
          MPI_Testany(n, reqs, &index, &flag, &st);
        }
        if (!flag) continue;
        CHECK(index >= 0 && index < n && !done[index], "%s gave index %d", mode_names[mode], index);
        if (index < 0 || index >= n) return;
        done[index] = 1, left--;
        if (index == 0) *part = st;
      }
      /* Only inactive and null requests are left: MPI says so. */
      MPI_Waitany(n, reqs, &index, MPI_STATUS_IGNORE);
      CHECK(index == MPI_UNDEFINED, "Waitany over inactive requests gave index %d", index);
      return;
    case kWaitsome:
    case kTestsome:
      while (left > 0) {
        if (mode == kWaitsome)
          MPI_Waitsome(n, reqs, &out, idx, sts);
        else
          MPI_Testsome(n, reqs, &out, idx, sts);
        CHECK(out != MPI_UNDEFINED, "%s: no active request while some are", mode_names[mode]);
        if (out == MPI_UNDEFINED) return;
        for (int k = 0; k < out; k++) {
          done[idx[k]] = 1, left--;
          if (idx[k] == 0) *part = sts[k];
        }
      }
      MPI_Waitsome(n, reqs, &out, idx, sts);
      CHECK(out == MPI_UNDEFINED, "Waitsome over inactive requests gave outcount %d", out);
      return;
  }
}

/* ---- cases ----------------------------------------------------------------------------- */

struct Case {
  int sp, rp, epochs, threads, mode, poll, tag;
  long long total; /* ints */
};

static int gcd(int a, int b) { return b == 0 ? a : gcd(b, a % b); }

static struct Case draw(uint64_t* rng, int i) {
  struct Case c;
  c.sp = 1 + below(rng, below(rng, 4) == 0 ? 64 : 16);
  c.rp = 1 + below(rng, below(rng, 4) == 0 ? 64 : 16);
  const long long lcm = (long long)c.sp / gcd(c.sp, c.rp) * c.rp;
  const long long max_ints = below(rng, 3) == 0 ? (1 << 20) : (1 << 14);
  c.total = lcm * below(rng, (int)(max_ints / lcm) + 1);
  if (below(rng, 8) == 0) c.total = 0;
  c.epochs = 1 + below(rng, 3);
  c.threads = 1 + below(rng, 4);
  c.mode = i < kModes ? i : below(rng, kModes); /* every mode at least once */
  c.poll = below(rng, 4) != 0;
  c.tag = 5 + i % 7;
  return c;
}

static void run_case(const struct Case* c, uint64_t seed, int i, uint64_t* local) {
  const int send = rank == 0, peer = 1 - rank;
  const int parts = send ? c->sp : c->rp;
  const MPI_Count count = c->total / parts;
  int* buf = malloc(sizeof(int) * (size_t)(c->total > 0 ? c->total : 1));
  int small_out = 0, small_in = 0, pers_out = 0, pers_in = 0;
  MPI_Request reqs[3] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL, MPI_REQUEST_NULL};
  if (send) {
    MPI_Psend_init(buf, parts, count, MPI_INT, peer, c->tag, MPI_COMM_WORLD, MPI_INFO_NULL,
                   &reqs[0]);
    MPI_Send_init(&pers_out, 1, MPI_INT, peer, 2, MPI_COMM_WORLD, &reqs[1]);
  } else {
    MPI_Precv_init(buf, parts, count, MPI_INT, peer, c->tag, MPI_COMM_WORLD, MPI_INFO_NULL,
                   &reqs[0]);
    MPI_Recv_init(&pers_in, 1, MPI_INT, peer, 2, MPI_COMM_WORLD, &reqs[1]);
  }
  const MPI_Request handle = reqs[0];
  check_inactive(&reqs[0], "before the first MPI_Start");
  for (int e = 0; e < c->epochs; e++) {
    if (send) {
      for (long long k = 0; k < c->total; k++) buf[k] = value(seed, i, e, k);
      pers_out = 1000 * i + e;
      small_out = -(1000 * i + e);
    } else {
      for (long long k = 0; k < c->total; k++) buf[k] = ~value(seed, i, e, k);
    }
    MPI_Startall(2, reqs);
    if (send) {
      MPI_Isend(&small_out, 1, MPI_INT, peer, 1, MPI_COMM_WORLD, &reqs[2]);
      ready_all(reqs[0], parts, c->threads, local);
    } else {
      MPI_Irecv(&small_in, 1, MPI_INT, peer, 1, MPI_COMM_WORLD, &reqs[2]);
      /* Parrived polling: a partition reported arrived must already hold its data. */
      int* seen = calloc((size_t)parts, sizeof(int));
      for (int left = c->poll ? parts : 0; left > 0;) {
        const int p = below(local, parts);
        if (seen[p]) continue;
        int flag = 0;
        CHECK(MPI_Parrived(reqs[0], p, &flag) == MPI_SUCCESS, "MPI_Parrived(%d) failed", p);
        if (!flag) continue;
        seen[p] = 1, left--;
        for (long long k = p * count; k < (p + 1) * count; k++)
          if (buf[k] != value(seed, i, e, k)) {
            CHECK(0, "case %d epoch %d: partition %d reported arrived, element %lld wrong", i, e, p,
                  k);
            break;
          }
      }
      free(seen);
    }
    MPI_Status part;
    memset(&part, 0, sizeof part);
    complete(c->mode, reqs, 3, &part);
    CHECK(reqs[0] == handle && reqs[1] != MPI_REQUEST_NULL && reqs[2] == MPI_REQUEST_NULL,
          "case %d: after %s the persistent handles must stay and the Irecv's be null", i,
          mode_names[c->mode]);
    if (!send) {
      int got = -1;
      MPI_Get_count(&part, MPI_INT, &got);
      CHECK(part.MPI_SOURCE == peer && part.MPI_TAG == c->tag && got == (int)c->total,
            "case %d epoch %d: partitioned receive status source %d tag %d count %d, expected "
            "%d %d %lld",
            i, e, part.MPI_SOURCE, part.MPI_TAG, got, peer, c->tag, c->total);
      int status_fields[3] = {part.MPI_SOURCE, part.MPI_TAG, got};
      fold(status_fields, sizeof status_fields);
      long long bad = -1;
      for (long long k = 0; k < c->total && bad < 0; k++)
        if (buf[k] != value(seed, i, e, k)) bad = k;
      CHECK(bad < 0, "case %d epoch %d: element %lld differs", i, e, bad);
      CHECK(pers_in == 1000 * i + e && small_in == -(1000 * i + e),
            "case %d epoch %d: ordinary messages %d %d", i, e, pers_in, small_in);
      fold(buf, sizeof(int) * (size_t)c->total);
      fold(&pers_in, sizeof pers_in);
      fold(&small_in, sizeof small_in);
    }
    check_inactive(&reqs[0], "after an epoch");
  }
  MPI_Request_free(&reqs[0]);
  MPI_Request_free(&reqs[1]);
  CHECK(reqs[0] == MPI_REQUEST_NULL, "MPI_Request_free left the partitioned handle set");
  free(buf);
}

static void cases(uint64_t seed, int n) {
  uint64_t shared = seed, local = seed * 31 + (uint64_t)rank;
  for (int i = 0; i < n && failures == 0; i++) {
    struct Case c = draw(&shared, i);
    /* MPICH 4.0.2's own partitioned requests abort in MPI_Testall ("Fatal error in
     * internal_Testall"): the reference runs complete with Wait and Waitall only, the routed
     * run ("strict") with all nine (the data and statuses compared do not depend on it). */
    if (!strict_inactive) c.mode %= 2;
    if (rank == 0)
      printf("case %d: %d -> %d partitions, %lld ints, %d epochs, %d threads, %s%s\n", i, c.sp,
             c.rp, c.total, c.epochs, c.threads, mode_names[c.mode], c.poll ? ", Parrived" : "");
    fflush(stdout);
    run_case(&c, seed, i, &local);
  }
  printf("rank %d digest %016llx\n", rank, (unsigned long long)digest);
}

/* ---- early ----------------------------------------------------------------------------- */

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

struct Rest {
  MPI_Request req;
  int partition;
};
static void* ready_one(void* arg) {
  struct Rest* r = arg;
  MPI_Pready(r->partition, r->req);
  return NULL;
}

static void early(const char* file, double seconds) {
  enum { kParts = 4, kCount = 1 << 20 }; /* 1 MiB per partition: beyond eager sizes */
  unsigned char* buf = malloc((size_t)kParts * kCount);
  MPI_Request req;
  if (rank == 0) {
    unlink(file);
    for (long i = 0; i < (long)kParts * kCount; i++) buf[i] = (unsigned char)value(42, 0, 0, i);
    MPI_Psend_init(buf, kParts, kCount, MPI_BYTE, 1, 3, MPI_COMM_WORLD, MPI_INFO_NULL, &req);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Start(&req);
    MPI_Pready(0, req);
    /* The other partitions' threads compute until the receiver saw partition 0: no MPI
     * call on this process meanwhile (liboverlap's progress thread may make some). */
    const double give_up = now() + seconds;
    int seen = 0;
    while (!(seen = access(file, F_OK) == 0) && now() < give_up) usleep(1000);
    CHECK(seen, "partition 0 did not arrive at the receiver within %.0f s before the last Pready",
          seconds);
    if (seen) printf("rank 0: partition 0 arrived before the last Pready\n");
    pthread_t tid[kParts];
    struct Rest rest[kParts];
    for (int p = 1; p < kParts; p++) {
      rest[p].req = req, rest[p].partition = p;
      pthread_create(&tid[p], NULL, ready_one, &rest[p]);
    }
    for (int p = 1; p < kParts; p++) pthread_join(tid[p], NULL);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
  } else {
    for (long i = 0; i < (long)kParts * kCount; i++) buf[i] = (unsigned char)~value(42, 0, 0, i);
    MPI_Precv_init(buf, kParts, kCount, MPI_BYTE, 0, 3, MPI_COMM_WORLD, MPI_INFO_NULL, &req);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Start(&req);
    int flag = 0;
    while (!flag) MPI_Parrived(req, 0, &flag);
    int ok = 1;
    for (long i = 0; i < kCount && ok; i++) ok = buf[i] == (unsigned char)value(42, 0, 0, i);
    CHECK(ok, "partition 0 reported arrived with wrong data");
    for (int p = 1; p < kParts; p++) {
      int other = 0;
      MPI_Parrived(req, p, &other);
      CHECK(!other, "partition %d reported arrived before the sender readied it", p);
    }
    FILE* f = fopen(file, "w");
    if (f != NULL) fclose(f);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    ok = 1;
    for (long i = 0; i < (long)kParts * kCount && ok; i++)
      ok = buf[i] == (unsigned char)value(42, 0, 0, i);
    CHECK(ok, "data differ after the epoch");
  }
  MPI_Request_free(&req);
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 1) unlink(file);
  free(buf);
}

/* ---- filled ---------------------------------------------------------------------------- */

enum { kFillPart = 512 * 1024 };

static char fill_byte(int part, size_t i) { return (char)(part * 31 + (int)(i % 251)); }

static void filled(void) {
  char* buf = NULL;
  if (posix_memalign((void**)&buf, 4096, 2 * kFillPart) != 0) {
    CHECK(0, "no memory");
    return;
  }
  memset(buf, 0, 2 * kFillPart);
  MPI_Request req = MPI_REQUEST_NULL;
  if (rank == 0) {
    MPI_Psend_init(buf, 2, kFillPart, MPI_CHAR, 1, 11, MPI_COMM_WORLD, MPI_INFO_NULL, &req);
    MPI_Start(&req);
    for (int p = 0; p < 2; ++p) {
      MPI_Recv(buf + (size_t)p * kFillPart, kFillPart, MPI_CHAR, 1, 20 + p, MPI_COMM_WORLD,
               MPI_STATUS_IGNORE);
      MPI_Pready(p, req);  /* no touch in between: the layer reads it first */
    }
    MPI_Wait(&req, MPI_STATUS_IGNORE);
  } else {
    char* out = malloc(kFillPart);
    MPI_Precv_init(buf, 2, kFillPart, MPI_CHAR, 0, 11, MPI_COMM_WORLD, MPI_INFO_NULL, &req);
    MPI_Start(&req);
    for (int p = 0; p < 2; ++p) {
      for (size_t i = 0; i < kFillPart; ++i) out[i] = fill_byte(p, i);
      MPI_Send(out, kFillPart, MPI_CHAR, 0, 20 + p, MPI_COMM_WORLD);
    }
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    free(out);
    for (int p = 0; p < 2; ++p)
      for (size_t i = 0; i < kFillPart && failures == 0; ++i)
        CHECK(buf[(size_t)p * kFillPart + i] == fill_byte(p, i),
              "partition %d byte %zu: %d, expected %d", p, i, buf[(size_t)p * kFillPart + i],
              fill_byte(p, i));
  }
  MPI_Request_free(&req);
  free(buf);
}

/* ---- errors ---------------------------------------------------------------------------- */

static void refused(int rc, const char* what, const char* needle) {
  char text[MPI_MAX_ERROR_STRING] = "";
  int len = 0;
  if (rc != MPI_SUCCESS) MPI_Error_string(rc, text, &len);
  CHECK(rc != MPI_SUCCESS && strstr(text, needle) != NULL,
        "%s: rc %d, message '%s', expected an error naming '%s'", what, rc, text, needle);
}

static void errors(void) {
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  int buf[16] = {0};
  MPI_Request req = MPI_REQUEST_NULL, bad = MPI_REQUEST_NULL;
  if (rank == 0) {
    refused(MPI_Psend_init(buf, 0, 4, MPI_INT, 1, 9, MPI_COMM_WORLD, MPI_INFO_NULL, &bad),
            "partitions 0", "partitions=0");
    MPI_Psend_init(buf, 4, 4, MPI_INT, 1, 9, MPI_COMM_WORLD, MPI_INFO_NULL, &req);
    refused(MPI_Pready(0, req), "Pready before Start", "partition=0");
    MPI_Start(&req);
    refused(MPI_Pready(4, req), "Pready out of range", "partition=4");
    CHECK(MPI_Pready(1, req) == MPI_SUCCESS, "Pready(1)");
    refused(MPI_Pready(1, req), "Pready twice", "partition=1");
    refused(MPI_Start(&req), "Start while active", "still active");
    refused(MPI_Request_free(&req), "Request_free while active", "active");
    refused(MPI_Cancel(&req), "Cancel", "cancel");
    int rest[3] = {3, 0, 2};
    CHECK(MPI_Pready_list(3, rest, req) == MPI_SUCCESS, "Pready_list");
    CHECK(MPI_Wait(&req, MPI_STATUS_IGNORE) == MPI_SUCCESS, "Wait");
  } else {
    refused(
        MPI_Precv_init(buf, 4, 4, MPI_INT, MPI_ANY_SOURCE, 9, MPI_COMM_WORLD, MPI_INFO_NULL, &bad),
        "wildcard source", "MPI_ANY_SOURCE");
    MPI_Precv_init(buf, 4, 4, MPI_INT, 0, 9, MPI_COMM_WORLD, MPI_INFO_NULL, &req);
    int flag = 0;
    refused(MPI_Parrived(req, 0, &flag), "Parrived before Start", "never started");
    MPI_Start(&req);
    refused(MPI_Parrived(req, 9, &flag), "Parrived out of range", "partition=9");
    CHECK(MPI_Wait(&req, MPI_STATUS_IGNORE) == MPI_SUCCESS, "Wait");
  }
  CHECK(MPI_Request_free(&req) == MPI_SUCCESS && req == MPI_REQUEST_NULL, "Request_free");
  CHECK(bad == MPI_REQUEST_NULL, "a refused init left a request behind");
}

int main(int argc, char** argv) {
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  int size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size != 2 || provided < MPI_THREAD_MULTIPLE) {
    if (rank == 0) printf("FAIL: needs 2 ranks and MPI_THREAD_MULTIPLE\n");
    MPI_Finalize();
    return 1;
  }
  if (argc >= 4 && strcmp(argv[1], "cases") == 0) {
    strict_inactive = argc >= 5 && strcmp(argv[4], "strict") == 0;
    cases(strtoull(argv[2], NULL, 10), atoi(argv[3]));
  } else if (argc >= 4 && strcmp(argv[1], "early") == 0) {
    early(argv[2], atof(argv[3]));
  } else if (argc >= 2 && strcmp(argv[1], "errors") == 0) {
    errors();
  } else if (argc >= 2 && strcmp(argv[1], "filled") == 0) {
    filled();
  } else {
    if (rank == 0)
      printf(
          "usage: intercept-partitioned cases SEED N [strict] | early FILE SEC | errors | "
          "filled\n");
    MPI_Finalize();
    return 2;
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (failures == 0) printf("rank %d PASS\n", rank);
  fflush(stdout);
  MPI_Finalize();
  return failures == 0 ? 0 : 1;
}
