// Pure MPI, no liboverlap: two MPI_Comm_idup of MPI_COMM_WORLD pending at once (the
// program's and, written out, the duplicate the attempt posted inside it), ranks with
// different free context ids (dups of MPI_COMM_SELF made and freed at random).
//   mpicxx.openmpi two_idups.cpp -o two_idups; mpiexec.openmpi -n 2 ./two_idups 30 skew
#include <mpi.h>
#include <unistd.h>
#include <cstdio>
#include <cstdlib>
#include <vector>
int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  srand(1234 + rank);
  std::vector<MPI_Comm> selfs;
  int trials = argc > 1 ? atoi(argv[1]) : 20;
  bool skew = argc > 2;
  for (int t = 0; t < trials; ++t) {
    int make = rand() % 4, drop = rand() % 3;
    for (int i = 0; i < make; ++i) {
      MPI_Comm s;
      MPI_Comm_dup(MPI_COMM_SELF, &s);
      selfs.push_back(s);
    }
    for (int i = 0; i < drop && !selfs.empty(); ++i) {
      size_t k = rand() % selfs.size();
      MPI_Comm_free(&selfs[k]);
      selfs.erase(selfs.begin() + k);
    }
    MPI_Comm c, twin;
    MPI_Request r, tr;
    MPI_Comm_idup(MPI_COMM_WORLD, &c, &r);
    MPI_Comm_idup(MPI_COMM_WORLD, &twin, &tr);
    MPI_Wait(&r, MPI_STATUS_IGNORE);
    if (skew && rank != 0) usleep(300000);
    int x = rank + 1, y = 0;
    MPI_Allreduce(&x, &y, 1, MPI_INT, MPI_SUM, c);
    if (y != size * (size + 1) / 2)
      std::printf("rank %d trial %d: wrong allreduce %d\n", rank, t, y);
    MPI_Wait(&tr, MPI_STATUS_IGNORE);
    MPI_Comm_free(&twin);
    MPI_Comm_free(&c);
    if (rank == 0) std::fprintf(stderr, "%d ", t);
  }
  if (rank == 0) std::printf("PASS\n");
  for (auto& s : selfs) MPI_Comm_free(&s);
  MPI_Finalize();
}
