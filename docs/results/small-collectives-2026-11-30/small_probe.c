/* Small collectives, one at a time (issue 28): per iteration MPI_Barrier, then one
 * nonblocking collective + MPI_Wait, timed on rank 0 (median, mean, 90th percentile), MPI's
 * own (mode mpi) or liboverlap's (mode ovx, the policy from OVERLAP_PROGRESS). Around the
 * loop it reads the progress thread's scheduler statistics (/proc/self/task/TID/schedstat:
 * CPU time, time waiting for the core, time slices), per iteration: on a core the thread
 * shares, what its wake-ups take from the caller.
 *   small_probe MODE OP ITERATIONS BYTES   MODE: mpi | ovx; OP: allreduce | bcast | alltoall
 * BYTES: the message (allreduce, bcast: doubles; alltoall: per rank). run.sh drives it. */
#include <dirent.h>
#include <mpi.h>
#include <overlap/overlap.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int progress_tid(void) {
  DIR* d = opendir("/proc/self/task");
  struct dirent* e;
  int tid = 0;
  while (d && (e = readdir(d))) {
    if (e->d_name[0] == '.') continue;
    char p[300], name[64] = {0};
    snprintf(p, sizeof p, "/proc/self/task/%s/comm", e->d_name);
    FILE* f = fopen(p, "r");
    if (!f) continue;
    if (fgets(name, sizeof name, f) && strncmp(name, "ovx-progress", 12) == 0) tid = atoi(e->d_name);
    fclose(f);
  }
  if (d) closedir(d);
  return tid;
}

static void schedstat(int tid, unsigned long long v[3]) {
  v[0] = v[1] = v[2] = 0;
  if (!tid) return;
  char p[128];
  snprintf(p, sizeof p, "/proc/self/task/%d/schedstat", tid);
  FILE* f = fopen(p, "r");
  if (!f) return;
  if (fscanf(f, "%llu %llu %llu", &v[0], &v[1], &v[2]) != 3) v[0] = v[1] = v[2] = 0;
  fclose(f);
}

static int cmp(const void* a, const void* b) {
  double x = *(const double*)a, y = *(const double*)b;
  return x < y ? -1 : x > y;
}

/* One collective of `count` doubles (per rank for alltoall), started and waited for. */
static void one(int ovx, const char* op, double* in, double* out, int count) {
  MPI_Request r;
  const MPI_Comm w = MPI_COMM_WORLD;
  if (op[0] == 'a' && op[3] == 'r') {
    if (ovx) OVX_Iallreduce(in, out, count, MPI_DOUBLE, MPI_SUM, w, &r);
    else MPI_Iallreduce(in, out, count, MPI_DOUBLE, MPI_SUM, w, &r);
  } else if (op[0] == 'b') {
    if (ovx) OVX_Ibcast(in, count, MPI_DOUBLE, 0, w, &r);
    else MPI_Ibcast(in, count, MPI_DOUBLE, 0, w, &r);
  } else {
    if (ovx) OVX_Ialltoall(in, count, MPI_DOUBLE, out, count, MPI_DOUBLE, w, &r);
    else MPI_Ialltoall(in, count, MPI_DOUBLE, out, count, MPI_DOUBLE, w, &r);
  }
  MPI_Wait(&r, MPI_STATUS_IGNORE);
}

int main(int argc, char** argv) {
  int prov;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &prov);
  if (argc != 5) {
    fprintf(stderr, "usage: small_probe mpi|ovx allreduce|bcast|alltoall ITERATIONS BYTES\n");
    return 2;
  }
  const int ovx = strcmp(argv[1], "ovx") == 0;
  const char* op = argv[2];
  const int n = atoi(argv[3]);
  const int bytes = atoi(argv[4]);
  if ((!ovx && strcmp(argv[1], "mpi") != 0) || n < 10 || bytes < 8 ||
      (strcmp(op, "allreduce") && strcmp(op, "bcast") && strcmp(op, "alltoall"))) {
    fprintf(stderr, "small_probe: bad arguments (mpi|ovx, allreduce|bcast|alltoall, >= 10, >= 8)\n");
    return 2;
  }
  OVX_Init(OVX_PROGRESS_DEFAULT);
  OVX_Calibrate();
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int count = bytes / 8;
  double* in = calloc((size_t)count * size, 8);
  double* out = calloc((size_t)count * size, 8);
  double* t = calloc(n, sizeof(double));
  const int tid = progress_tid();
  unsigned long long s0[3], s1[3];
  for (int w = 0; w < 50; ++w) one(ovx, op, in, out, count); /* warm-up */
  schedstat(tid, s0);
  for (int i = 0; i < n; ++i) {
    MPI_Barrier(MPI_COMM_WORLD);
    const double t0 = MPI_Wtime();
    one(ovx, op, in, out, count);
    t[i] = (MPI_Wtime() - t0) * 1e6;
  }
  schedstat(tid, s1);
  qsort(t, n, sizeof(double), cmp);
  double sum = 0;
  for (int i = 0; i < n; ++i) sum += t[i];
  if (rank == 0)
    printf("%-4s %-13s %-9s %6d B  median %7.2f  mean %7.2f  p90 %7.2f us | thread/iter: run %6.2f us, "
           "wait %6.2f us, slices %.2f\n",
           argv[1], getenv("PROBE_TAG") ? getenv("PROBE_TAG") : "", op, bytes, t[n / 2], sum / n,
           t[n * 9 / 10], (s1[0] - s0[0]) / 1e3 / n, (s1[1] - s0[1]) / 1e3 / n,
           (double)(s1[2] - s0[2]) / n);
  OVX_Finalize();
  MPI_Finalize();
  return 0;
}
