/* The same with liboverlap instead of a plain MPI_Comm_idup: rank 0's first OVX collective on
 * MPI_COMM_WORLD, then the program's own MPI_Comm_split(MPI_COMM_SELF), then a message that
 * rank 1 receives (MPI_Recv) before its own first OVX collective. Valid; hangs with Open MPI
 * 4.1.4 (see creation-behind-idup.txt), returns at once with MPICH. Build against an
 * installed liboverlap: mpicc creation_behind_ovx.c $(pkg-config --cflags --libs overlap). */
#include <mpi.h>
#include <overlap/overlap.h>  /* liboverlap C API */
#include <stdio.h>
#include <unistd.h>
int main(int argc, char** argv) {
  int prov; MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &prov);
  OVX_Init(OVX_PROGRESS_CALLER);
  int rank; MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  int in = 1, out = 0, token = 0;
  MPI_Request rw;
  if (rank == 0) {
    OVX_Iallreduce(&in, &out, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &rw);
    double t0 = MPI_Wtime();
    MPI_Comm c; MPI_Comm_split(MPI_COMM_SELF, 0, 0, &c);
    printf("rank 0: the program's own MPI_Comm_split of MPI_COMM_SELF returned after %.2f s\n", MPI_Wtime() - t0); fflush(stdout);
    MPI_Send(&token, 1, MPI_INT, 1, 3, MPI_COMM_WORLD);
    MPI_Comm_free(&c);
  } else {
    MPI_Recv(&token, 1, MPI_INT, 0, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    OVX_Iallreduce(&in, &out, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &rw);
  }
  MPI_Wait(&rw, MPI_STATUS_IGNORE);
  printf("rank %d: sum %d\n", rank, out);
  OVX_Finalize(); MPI_Finalize(); return 0;
}
