/* Open MPI 4.1 without liboverlap: a process's own communicator creation waits behind its
 * pending MPI_Comm_idup of MPI_COMM_WORLD until the other ranks join that idup. See
 * README.md here ("Open MPI: creation behind a pending duplication").
 *
 *   mpicc -o creation_behind_idup creation_behind_idup.c       (or mpicc.mpich)
 *   mpiexec -n 2 ./creation_behind_idup
 *
 * Rank 0 starts MPI_Comm_idup(MPI_COMM_WORLD) (what liboverlap's first collective on a
 * communicator does), tests it once, then calls MPI_Comm_split(MPI_COMM_SELF) and sends
 * rank 1 a message. Rank 1 waits up to 8 s for that message before its own
 * MPI_Comm_idup(MPI_COMM_WORLD); had it waited in MPI_Recv, the program would hang. */
#include <mpi.h>
#include <stdio.h>
#include <unistd.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm world_dup, alone;
  MPI_Request idup;
  int token = 0;
  if (rank == 0) {
    MPI_Comm_idup(MPI_COMM_WORLD, &world_dup, &idup);
    int done = 0;
    MPI_Test(&idup, &done, MPI_STATUS_IGNORE);
    const double t0 = MPI_Wtime();
    MPI_Comm_split(MPI_COMM_SELF, 0, 0, &alone);
    printf("rank 0: MPI_Comm_split(MPI_COMM_SELF) returned after %.2f s\n", MPI_Wtime() - t0);
    fflush(stdout);
    MPI_Send(&token, 1, MPI_INT, 1, 1, MPI_COMM_WORLD);
    MPI_Wait(&idup, MPI_STATUS_IGNORE);
  } else {
    MPI_Request recv;
    int got = 0;
    MPI_Irecv(&token, 1, MPI_INT, 0, 1, MPI_COMM_WORLD, &recv);
    const double t0 = MPI_Wtime();
    while (!got && MPI_Wtime() - t0 < 8) {
      MPI_Test(&recv, &got, MPI_STATUS_IGNORE);
      usleep(1000);
    }
    if (!got) printf("rank 1: no message from rank 0 in 8 s (joining the idup to end it)\n");
    fflush(stdout);
    MPI_Comm_idup(MPI_COMM_WORLD, &world_dup, &idup);
    MPI_Wait(&idup, MPI_STATUS_IGNORE);
    if (!got) MPI_Wait(&recv, MPI_STATUS_IGNORE);
    MPI_Comm_split(MPI_COMM_SELF, 0, 0, &alone);
  }
  MPI_Comm_free(&alone);
  MPI_Comm_free(&world_dup);
  MPI_Finalize();
  return 0;
}
