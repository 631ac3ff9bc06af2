/* What MPI_Comm_idup costs with liboverlap's duplicate posted inside it (Open MPI): N
 * rounds of MPI_Comm_idup of MPI_COMM_WORLD + MPI_Wait + MPI_Comm_free, median of 5 timed
 * batches, microseconds per round on rank 0. Link it with liboverlap (before MPI) or
 * without:
 *   mpicc -O2 idup_cost.c -o idup_ovx $(pkg-config --cflags --libs overlap)
 *   mpicc -O2 idup_cost.c -o idup_plain
 *   mpiexec -n 2 ./idup_ovx 2000 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static int cmp(const void* a, const void* b) {
  double x = *(const double*)a, y = *(const double*)b;
  return (x > y) - (x < y);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  const int n = argc > 1 ? atoi(argv[1]) : 2000;
  double batch[5];
  for (int b = 0; b < 5; ++b) {
    MPI_Barrier(MPI_COMM_WORLD);
    const double t0 = MPI_Wtime();
    for (int i = 0; i < n; ++i) {
      MPI_Comm c;
      MPI_Request r;
      MPI_Comm_idup(MPI_COMM_WORLD, &c, &r);
      MPI_Wait(&r, MPI_STATUS_IGNORE);
      MPI_Comm_free(&c);
    }
    batch[b] = (MPI_Wtime() - t0) / n * 1e6;
  }
  qsort(batch, 5, sizeof batch[0], cmp);
  if (rank == 0)
    printf("MPI_Comm_idup + MPI_Wait + MPI_Comm_free: %.1f us per round (median of 5 batches "
           "of %d; %.1f-%.1f)\n", batch[2], n, batch[0], batch[4]);
  MPI_Finalize();
  return 0;
}
