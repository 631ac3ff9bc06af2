/* The fixed cost of one small collective (issue 28): per call, one nonblocking collective
 * + MPI_Wait in a loop of N on 2 local ranks (shared memory, so the network adds almost
 * nothing), MPI's own (mode mpi) or liboverlap's with `caller` (mode ovx); time per call on
 * rank 0, the best of 5 blocks of N / 5 (a block that a neighbour on the machine disturbed
 * is left out).
 *   fixed_cost MODE OP N     MODE: mpi | ovx; OP: allreduce | bcast | alltoall | barrier
 * 8 bytes (one double; alltoall: one per rank). run.sh drives it. */
#include <mpi.h>
#include <overlap/overlap.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void one(int ovx, const char* op, double* in, double* out) {
  MPI_Request r;
  const MPI_Comm w = MPI_COMM_WORLD;
  if (strcmp(op, "allreduce") == 0) {
    if (ovx) OVX_Iallreduce(in, out, 1, MPI_DOUBLE, MPI_SUM, w, &r);
    else MPI_Iallreduce(in, out, 1, MPI_DOUBLE, MPI_SUM, w, &r);
  } else if (strcmp(op, "bcast") == 0) {
    if (ovx) OVX_Ibcast(in, 1, MPI_DOUBLE, 0, w, &r);
    else MPI_Ibcast(in, 1, MPI_DOUBLE, 0, w, &r);
  } else if (strcmp(op, "alltoall") == 0) {
    if (ovx) OVX_Ialltoall(in, 1, MPI_DOUBLE, out, 1, MPI_DOUBLE, w, &r);
    else MPI_Ialltoall(in, 1, MPI_DOUBLE, out, 1, MPI_DOUBLE, w, &r);
  } else {
    if (ovx) OVX_Ibarrier(w, &r);
    else MPI_Ibarrier(w, &r);
  }
  MPI_Wait(&r, MPI_STATUS_IGNORE);
}

int main(int argc, char** argv) {
  int provided;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  if (argc != 4) {
    fprintf(stderr, "usage: fixed_cost mpi|ovx OP N\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  const int ovx = strcmp(argv[1], "ovx") == 0;
  const char* op = argv[2];
  const int n = atoi(argv[3]);
  if (ovx) OVX_Init(OVX_PROGRESS_CALLER);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  double* in = calloc((size_t)size, sizeof(double));
  double* out = calloc((size_t)size, sizeof(double));
  for (int i = 0; i < n / 10; ++i) one(ovx, op, in, out); /* warm up */
  double best = 1e30;
  for (int b = 0; b < 5; ++b) {
    MPI_Barrier(MPI_COMM_WORLD);
    const double t0 = MPI_Wtime();
    for (int i = 0; i < n / 5; ++i) one(ovx, op, in, out);
    const double per = (MPI_Wtime() - t0) / (n / 5);
    if (per < best) best = per;
  }
  if (rank == 0) printf("%s %-9s %8.3f us\n", argv[1], op, best * 1e6);
  free(in);
  free(out);
  if (ovx) OVX_Finalize();
  MPI_Finalize();
  return 0;
}
