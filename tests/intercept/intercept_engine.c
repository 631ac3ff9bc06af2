/* A program that links liboverlap AND runs under overlap-run must have one progress engine
 * (check_intercept.py's `engine` case runs it plain and intercepted and compares digests).
 * What it asserts itself, on 2 ranks:
 *  - one thread named ovx-progress under the thread policies (none or liboverlap's MPICH
 *    rescue thread under caller): a second engine would bring a second thread;
 *  - under overlap-run, a blocking MPI_Send that cannot complete yet (the receiver has not
 *    posted its receive) is counted in flight by the engine the program's liboverlap uses
 *    (the private ABI's ovx_private_in_flight): the interception's transfers are in it;
 *  - OVX_Get_progress agrees with OVERLAP_PROGRESS (overlap-run's --progress), and so do
 *    the preload's overlap_intercept_policy(); overlap_intercept_deferred() counts that
 *    MPI_Send (what overlap-bench p2p records per point);
 *  - OVX_Iallreduce on the buffer of a deferred receive (protected, the engine's thread
 *    reads it) gives the exact sums: liboverlap's collectives complete the covering
 *    transfers first.
 * Every rank prints "rank R digest HEX" of all it received and computed.
 * Usage: intercept-engine engine SEED ITERATIONS */
#define _GNU_SOURCE
#include <dirent.h>
#include <dlfcn.h>
#include <mpi.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "overlap/overlap.h"

size_t ovx_private_in_flight(void); /* liboverlap's private ABI (progress/private_abi.h) */

#define N (1 << 20) /* int64 elements: 8 MiB, far above any eager limit */

static void die(int rank, const char* what) {
  fprintf(stderr, "rank %d: FAIL: %s\n", rank, what);
  MPI_Abort(MPI_COMM_WORLD, 1);
}

static int engine_threads(void) {
  DIR* d = opendir("/proc/self/task");
  int n = 0;
  struct dirent* e;
  while (d != NULL && (e = readdir(d)) != NULL) {
    if (e->d_name[0] == '.') continue;
    char path[300], name[64] = "";
    snprintf(path, sizeof path, "/proc/self/task/%s/comm", e->d_name);
    FILE* f = fopen(path, "r");
    if (f == NULL) continue;
    if (fgets(name, sizeof name, f) != NULL && strcmp(name, "ovx-progress\n") == 0) n++;
    fclose(f);
  }
  if (d != NULL) closedir(d);
  return n;
}

static uint64_t fnv(uint64_t h, const void* p, size_t n) {
  const unsigned char* b = p;
  for (size_t i = 0; i < n; i++) h = (h ^ b[i]) * 1099511628211ull;
  return h;
}

static int64_t* pages(void) {
  void* p =
      mmap(NULL, N * sizeof(int64_t), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  return p == MAP_FAILED ? NULL : p;
}

int main(int argc, char** argv) {
  int provided = 0, rank = 0, size = 0;
  alarm(300); /* a hang (e.g. a send that was not deferred below) ends the test, loudly */
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size != 2) die(rank, "run on 2 ranks");
  const uint64_t seed = argc > 2 ? strtoull(argv[2], NULL, 10) : 1;
  const int iterations = argc > 3 ? atoi(argv[3]) : 4;
  if (OVX_Init(OVX_PROGRESS_DEFAULT) != MPI_SUCCESS) die(rank, "OVX_Init failed");
  OVX_Progress policy = OVX_PROGRESS_DEFAULT;
  OVX_Get_progress(&policy);
  const char* asked = getenv("OVERLAP_PROGRESS");
  if (asked != NULL && *asked != '\0' && strcmp(asked, OVX_Progress_name(policy)) != 0)
    die(rank, "OVX_Get_progress disagrees with OVERLAP_PROGRESS");
  const int threads = engine_threads();
  if (policy != OVX_PROGRESS_CALLER ? threads != 1 : threads > 1) {
    fprintf(stderr, "rank %d: %d ovx-progress threads, policy %s\n", rank, threads,
            OVX_Progress_name(policy));
    die(rank, "not one engine");
  }
  int (*loaded)(void) = (int (*)(void))dlsym(RTLD_DEFAULT, "overlap_intercept_loaded");
  const int intercepted = loaded != NULL && loaded();
  if (getenv("OVERLAP_INTERCEPT_EXPECTED") != NULL && !intercepted)
    die(rank, "overlap-run's interception is not loaded");
  long (*deferred)(void) = (long (*)(void))dlsym(RTLD_DEFAULT, "overlap_intercept_deferred");
  if (intercepted) {
    const char* (*in_effect)(void) =
        (const char* (*)(void))dlsym(RTLD_DEFAULT, "overlap_intercept_policy");
    const char* name = in_effect != NULL ? in_effect() : NULL;
    if (name == NULL || strcmp(name, OVX_Progress_name(policy)) != 0)
      die(rank, "overlap_intercept_policy() disagrees with OVX_Get_progress");
  }

  int64_t* buf = pages();
  int64_t* sum = pages();
  if (buf == NULL || sum == NULL) die(rank, "mmap");
  uint64_t digest = 1469598103934665603ull;
  for (int it = 0; it < iterations; it++) {
    const int64_t base = (int64_t)(seed * 7919u) + it;
    int token = it;
    /* Under overlap-run, in the first iteration, rank 1 posts its receive only after a
     * token rank 0 sends once its MPI_Send has returned: the send cannot be done then, so
     * the engine the program's liboverlap uses must count it in flight. (Only the deferral
     * lets that MPI_Send return: without it this branch would hang, hence the alarm.) */
    const int hold = intercepted && it == 0;
    if (rank == 0) {
      for (int i = 0; i < N; i++) buf[i] = base * 31 + i;
      const long deferred_before = deferred != NULL ? deferred() : 0;
      MPI_Send(buf, N, MPI_INT64_T, 1, 1, MPI_COMM_WORLD);
      if (hold) {
        if (deferred == NULL || deferred() != deferred_before + 1)
          die(rank, "overlap_intercept_deferred() did not count the deferred MPI_Send");
        if (ovx_private_in_flight() == 0)
          die(rank, "the deferred MPI_Send is not in the program's liboverlap engine");
        MPI_Send(&token, 1, MPI_INT, 1, 2, MPI_COMM_WORLD);
      }
    } else {
      if (hold) MPI_Recv(&token, 1, MPI_INT, 0, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      MPI_Recv(buf, N, MPI_INT64_T, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    /* Both ranks hold the same data; rank 1's buffer may still be in flight here. */
    MPI_Request r;
    if (OVX_Iallreduce(buf, sum, N, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD, &r) != MPI_SUCCESS)
      die(rank, "OVX_Iallreduce failed");
    MPI_Wait(&r, MPI_STATUS_IGNORE);
    for (int i = 0; i < N; i++)
      if (sum[i] != 2 * (base * 31 + i)) die(rank, "wrong allreduce result");
    digest = fnv(digest, buf, N * sizeof(int64_t));
    digest = fnv(digest, sum, N * sizeof(int64_t));
  }
  printf("rank %d digest %016llx\n", rank, (unsigned long long)digest);
  fflush(stdout);
  OVX_Finalize();
  munmap(buf, N * sizeof(int64_t));
  munmap(sum, N * sizeof(int64_t));
  MPI_Finalize();
  return 0;
}
