// Uses both installed headers: the C API and the C++ layer. Prints "consumer ok P" on
// rank 0 when an allreduce and a broadcast give the right answers.
#include <overlap/overlap.hpp>

#include <cstdio>
#include <vector>

int main(int argc, char** argv) {
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  bool ok = true;
  {
    overlap::Session session(overlap::Progress::shared);
    std::vector<long> mine(1000, rank + 1), sum(1000, 0);
    auto r = overlap::iallreduce<long>(mine, sum, MPI_SUM, MPI_COMM_WORLD);
    std::vector<int> data(5000, rank == 0 ? 7 : 0);
    MPI_Request plain;
    OVX_Ibcast(data.data(), 5000, MPI_INT, 0, MPI_COMM_WORLD, &plain);
    MPI_Wait(&plain, MPI_STATUS_IGNORE);
    r.wait();
    for (long v : sum) ok = ok && v == static_cast<long>(size) * (size + 1) / 2;
    for (int v : data) ok = ok && v == 7;
    ok = ok && session.policy() == overlap::Progress::shared;
  }
  int all = ok ? 1 : 0;
  MPI_Allreduce(MPI_IN_PLACE, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (rank == 0) std::printf(all ? "consumer ok %d\n" : "consumer WRONG %d\n", size);
  MPI_Finalize();
  return all ? 0 : 1;
}
