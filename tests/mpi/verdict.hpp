// What the liboverlap MPI test programs share: counting failed checks on each rank and
// agreeing on one verdict.
#pragma once

#include <mpi.h>

#include <cstdio>
#include <string>

namespace ovx_test {

inline int failures = 0;

inline void expect(bool ok, const std::string& what) {
  if (ok) return;
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  std::fprintf(stderr, "rank %d: FAIL: %s\n", rank, what.c_str());
  ++failures;
}

// Failures summed over MPI_COMM_WORLD (a collective call); rank 0 prints "PASS" or how
// many checks failed. Returns the process's exit code.
inline int verdict(const char* name = "") {
  int all = failures, rank = 0;
  MPI_Allreduce(MPI_IN_PLACE, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0) {
    if (all == 0)
      std::printf("PASS %s\n", name);
    else
      std::printf("FAILED %s: %d check(s)\n", name, all);
  }
  return all == 0 ? 0 : 1;
}

}  // namespace ovx_test
