/* The shared-memory figure of docs/liboverlap.md ("Standing down"): 8-byte MPI_Allreduce,
 * MPI_Iallreduce + MPI_Wait and OVX_Iallreduce + MPI_Wait in loops, time per call on rank 0.
 * On this project's 2-core machine, 2 local ranks, from the repository root:
 *   mpicc.mpich -O2 -I include -I build/test-mpich/include -o /tmp/small_loop \
 *     docs/results/collective-latency-2026-11-28/small_loop.c -Lbuild/test-mpich/src/collectives \
 *     -loverlap -Wl,-rpath,$PWD/build/test-mpich/src/collectives
 *   mpiexec.mpich -n 2 /tmp/small_loop caller 100000
 * (Open MPI likewise with mpicc.openmpi, build/test-openmpi, mpirun --oversubscribe). */
#include <mpi.h>
#include <overlap/overlap.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
int main(int argc, char** argv) {
  int prov; MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &prov);
  const char* pol = argc > 1 ? argv[1] : "caller";
  int n = argc > 2 ? atoi(argv[2]) : 20000;
  OVX_Init(strcmp(pol, "shared") == 0 ? OVX_PROGRESS_SHARED : OVX_PROGRESS_CALLER);
  int rank; MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  double in = rank, out;
  int only = argc > 3 ? atoi(argv[3]) : -1;
  for (int mode = 0; mode < 3; ++mode) { if (only >= 0 && mode != only) continue;
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    for (int i = 0; i < n; ++i) {
      MPI_Request r;
      if (mode == 0) MPI_Allreduce(&in, &out, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
      else if (mode == 1) { MPI_Iallreduce(&in, &out, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, &r); MPI_Wait(&r, MPI_STATUS_IGNORE); }
      else { OVX_Iallreduce(&in, &out, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, &r); MPI_Wait(&r, MPI_STATUS_IGNORE); }
    }
    double t = (MPI_Wtime() - t0) / n * 1e6;
    if (rank == 0) printf("%s mode %s: %.2f us\n", pol, mode == 0 ? "MPI_Allreduce" : mode == 1 ? "MPI_Iallreduce" : "OVX_Iallreduce", t);
  }
  OVX_Finalize();
  MPI_Finalize();
}
