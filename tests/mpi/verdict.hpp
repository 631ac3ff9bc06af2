// What the liboverlap MPI test programs share: counting failed checks on each rank and
// agreeing on one verdict.
#pragma once

#include <mpi.h>

#include <cstdio>
#include <functional>
#include <map>
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

// Runs `scenario` of `scenarios` (MPI initialised), agrees on the verdict and finalises
// MPI. Returns the process's exit code: 2 for a scenario `program` does not have.
inline int run_scenario(const char* program, const std::string& scenario,
                        const std::map<std::string, std::function<void()>>& scenarios) {
  const auto it = scenarios.find(scenario);
  if (it == scenarios.end()) {
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) std::fprintf(stderr, "%s: unknown scenario '%s'\n", program, scenario.c_str());
    MPI_Finalize();
    return 2;
  }
  it->second();
  const int code = verdict(scenario.c_str());
  MPI_Finalize();
  return code;
}

}  // namespace ovx_test
