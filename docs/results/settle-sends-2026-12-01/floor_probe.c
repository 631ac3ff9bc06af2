/* The floor under a small liboverlap collective on 2 ranks (issue 28): per iteration
 * MPI_Barrier, then one 8-byte bcast or alltoall done one of five ways, timed on rank 0
 * (median, mean, 90th percentile in microseconds):
 *   mpi   MPI's own nonblocking call + MPI_Wait
 *   blk   MPI's own blocking call
 *   p2p   what the collective is at P = 2, in point-to-point: MPI_Irecv/MPI_Isend + MPI_Waitall
 *   greq  p2p inside a generalized request: start it, post, MPI_Waitall, complete it, MPI_Wait
 *   ovx   liboverlap's OVX_I* + MPI_Wait (policy `caller`)
 * greq is what any library built on MPI's public interface must at least do; ovx - greq is
 * what liboverlap adds to it.
 *   floor_probe MODE bcast|alltoall ITERATIONS   (2 ranks; run.sh drives it) */
#include <mpi.h>
#include <overlap/overlap.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int query(void* s, MPI_Status* st) {
  (void)s;
  MPI_Status_set_elements(st, MPI_BYTE, 0);
  MPI_Status_set_cancelled(st, 0);
  st->MPI_SOURCE = MPI_UNDEFINED;
  st->MPI_TAG = MPI_UNDEFINED;
  return MPI_SUCCESS;
}
static int release(void* s) {
  (void)s;
  return MPI_SUCCESS;
}
static int cancel(void* s, int c) {
  (void)s;
  (void)c;
  return MPI_SUCCESS;
}
static int cmp(const void* a, const void* b) {
  double x = *(const double*)a, y = *(const double*)b;
  return x < y ? -1 : x > y;
}

static void one(const char* mode, int bcast, double* in, double* out, int rank) {
  const MPI_Comm w = MPI_COMM_WORLD;
  MPI_Request r, pr[2];
  const int peer = 1 - rank;
  if (!strcmp(mode, "mpi") || !strcmp(mode, "ovx")) {
    if (mode[0] == 'm') {
      if (bcast)
        MPI_Ibcast(in, 1, MPI_DOUBLE, 0, w, &r);
      else
        MPI_Ialltoall(in, 1, MPI_DOUBLE, out, 1, MPI_DOUBLE, w, &r);
    } else {
      if (bcast)
        OVX_Ibcast(in, 1, MPI_DOUBLE, 0, w, &r);
      else
        OVX_Ialltoall(in, 1, MPI_DOUBLE, out, 1, MPI_DOUBLE, w, &r);
    }
    MPI_Wait(&r, MPI_STATUS_IGNORE);
    return;
  }
  if (!strcmp(mode, "blk")) {
    if (bcast)
      MPI_Bcast(in, 1, MPI_DOUBLE, 0, w);
    else
      MPI_Alltoall(in, 1, MPI_DOUBLE, out, 1, MPI_DOUBLE, w);
    return;
  }
  const int greq = !strcmp(mode, "greq");
  if (greq) MPI_Grequest_start(query, release, cancel, NULL, &r);
  int n = 0;
  if (bcast) {
    if (rank == 0)
      MPI_Isend(in, 1, MPI_DOUBLE, 1, 7, w, &pr[n++]);
    else
      MPI_Irecv(in, 1, MPI_DOUBLE, 0, 7, w, &pr[n++]);
  } else {
    MPI_Irecv(out + peer, 1, MPI_DOUBLE, peer, 7, w, &pr[n++]);
    MPI_Isend(in + peer, 1, MPI_DOUBLE, peer, 7, w, &pr[n++]);
    out[rank] = in[rank];
  }
  MPI_Status st[2];
  MPI_Waitall(n, pr, st);
  if (greq) {
    MPI_Grequest_complete(r);
    MPI_Wait(&r, MPI_STATUS_IGNORE);
  }
}

int main(int argc, char** argv) {
  int provided, rank, size;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const char* modes = " mpi blk p2p greq ovx ";
  char key[16];
  snprintf(key, sizeof key, " %.10s ", argc > 1 ? argv[1] : "");
  if (argc != 4 || !strstr(modes, key) ||
      (strcmp(argv[2], "bcast") && strcmp(argv[2], "alltoall")) || atoi(argv[3]) < 10 ||
      size != 2) {
    if (rank == 0)
      fprintf(stderr,
              "usage: floor_probe mpi|blk|p2p|greq|ovx bcast|alltoall ITERATIONS(>=10), 2 ranks\n");
    MPI_Finalize();
    return 2;
  }
  const char* mode = argv[1];
  const int bcast = !strcmp(argv[2], "bcast");
  const int n = atoi(argv[3]);
  OVX_Init(OVX_PROGRESS_CALLER);
  double in[2] = {1, 2}, out[2];
  double* t = calloc((size_t)n, sizeof(double));
  for (int i = 0; i < 100; ++i) one(mode, bcast, in, out, rank); /* warm-up */
  for (int i = 0; i < n; ++i) {
    MPI_Barrier(MPI_COMM_WORLD);
    const double t0 = MPI_Wtime();
    one(mode, bcast, in, out, rank);
    t[i] = (MPI_Wtime() - t0) * 1e6;
  }
  double sum = 0;
  for (int i = 0; i < n; ++i) sum += t[i];
  qsort(t, (size_t)n, sizeof(double), cmp);
  if (rank == 0)
    printf("%-5s %-8s median %6.2f mean %6.2f p90 %6.2f us\n", mode, argv[2], t[n / 2], sum / n,
           t[n * 9 / 10]);
  free(t);
  OVX_Finalize();
  MPI_Finalize();
  return 0;
}
