/* overlap-run's cost on a small blocking call with cold caches, on one node. Each
 * measured operation follows a 200 us sleep (a blocking call in a real program follows a
 * computation that has evicted the layer's code and data), and the program's own calls
 * (MPI_*, which overlap-run interposes) alternate with the same calls made as PMPI_*
 * (which it never sees) in ABBA order; rank 0 prints the median of each and their ratio.
 *   pingpong  ranks 0 and 1: a 1 KiB round trip, started by both at an agreed instant
 *   proc-null rank 0: one MPI_Send to MPI_PROC_NULL (decided by overlap-run's core)
 * Built and run by local.sh. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int compare(const void* a, const void* b) {
  const double x = *(const double*)a, y = *(const double*)b;
  return x < y ? -1 : x > y;
}

static double median(double* v, int n) {
  qsort(v, (size_t)n, sizeof *v, compare);
  return v[n / 2];
}

/* Both ranks leave at the same instant (one clock on one node), after sleeping. */
static double cold_start(void) {
  PMPI_Barrier(MPI_COMM_WORLD);
  double at = PMPI_Wtime() + 300e-6;
  PMPI_Bcast(&at, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  usleep(200);
  while (PMPI_Wtime() < at) {
  }
  return at;
}

static void round_trip(int rank, int pmpi, char* buf) {
  const int n = 1024, peer = 1 - rank;
  if (rank == 0) {
    (pmpi ? PMPI_Send : MPI_Send)(buf, n, MPI_BYTE, peer, 0, MPI_COMM_WORLD);
    (pmpi ? PMPI_Recv : MPI_Recv)(buf, n, MPI_BYTE, peer, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  } else if (rank == 1) {
    (pmpi ? PMPI_Recv : MPI_Recv)(buf, n, MPI_BYTE, peer, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    (pmpi ? PMPI_Send : MPI_Send)(buf, n, MPI_BYTE, peer, 0, MPI_COMM_WORLD);
  }
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  const int pingpong = argc < 2 || strcmp(argv[1], "proc-null") != 0;
  const int n = argc > 2 ? atoi(argv[2]) : 4000;
  double* t[2] = {malloc(sizeof(double) * n), malloc(sizeof(double) * n)};
  static char buf[1024];
  for (int i = 0; i < 2 * n; i++) {
    const int pmpi = (i % 2) != (i / 2 % 2); /* ABBA: written, PMPI, PMPI, written, ... */
    double start = cold_start();
    if (pingpong) {
      round_trip(rank, pmpi, buf);
    } else {
      start = PMPI_Wtime();
      if (rank == 0)
        (pmpi ? PMPI_Send : MPI_Send)(buf, 1024, MPI_BYTE, MPI_PROC_NULL, 0, MPI_COMM_WORLD);
    }
    t[pmpi][i / 2] = PMPI_Wtime() - start;
  }
  if (rank == 0) {
    const double written = median(t[0], n), direct = median(t[1], n);
    printf("%s: MPI_* %.0f ns, PMPI_* %.0f ns, ratio %.3f\n", pingpong ? "pingpong" : "proc-null",
           written * 1e9, direct * 1e9, written / direct);
  }
  free(t[0]);
  free(t[1]);
  MPI_Finalize();
  return 0;
}
