/* Programs whose calls never reach overlap-run, which must say so rather than run as if
 * there had been nothing to overlap (issue 25, item 5):
 *   pmpi         starts MPI with PMPI_Init (as a library of its own might) and calls only
 *                PMPI_ functions: the core never loads; rank 0 says so at exit and the
 *                report has no ranks, metadata.intercepted false and a note;
 *   collectives  MPI_Init, then only a blocking MPI_Allreduce and MPI_Barrier: nothing to
 *                defer or progress; rank 0 says so at MPI_Finalize, the report has its
 *                ranks and metadata.intercepted false.
 * Each rank prints the allreduce's result. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char** argv) {
  const int pmpi = argc > 1 && strcmp(argv[1], "pmpi") == 0;
  int rank = 0, sum = 0;
  if (pmpi) {
    PMPI_Init(&argc, &argv);
    PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
    PMPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  } else {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Barrier(MPI_COMM_WORLD);
  }
  printf("rank %d sum %d\n", rank, sum);
  fflush(stdout);
  return pmpi ? PMPI_Finalize() : MPI_Finalize();
}
