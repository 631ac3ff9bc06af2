/* A C application using the installed C API: liboverlap's allreduce and broadcast are
 * checked against MPI's own, and rank 0 prints "consumer ok P". Built two ways: CMake's
 * find_package(Overlap) (CMakeLists.txt) and pkg-config (Makefile). */
#include <overlap/overlap.h>

#include <stdio.h>

enum { N = 4096 };

int main(int argc, char** argv) {
  int provided = 0, rank = 0, size = 0, ok = 1;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (OVX_Init(OVX_PROGRESS_SHARED) != MPI_SUCCESS) ok = 0;

  static double mine[N], ours[N], theirs[N];
  static int data[N];
  for (int i = 0; i < N; ++i) {
    mine[i] = (double)((rank + 1) * (i % 97)); /* exact sums: equal bit for bit */
    data[i] = rank == 0 ? i : -1;
  }
  MPI_Request reqs[2];
  OVX_Iallreduce(mine, ours, N, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, &reqs[0]);
  OVX_Ibcast(data, N, MPI_INT, 0, MPI_COMM_WORLD, &reqs[1]);
  MPI_Allreduce(mine, theirs, N, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE);
  for (int i = 0; i < N; ++i) {
    if (ours[i] != theirs[i] || data[i] != i) ok = 0;
  }
  OVX_Finalize();
  MPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (rank == 0) printf(ok ? "consumer ok %d\n" : "consumer WRONG %d\n", size);
  MPI_Finalize();
  return ok ? 0 : 1;
}
