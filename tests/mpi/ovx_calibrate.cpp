// OVX_Calibrate (issue 28): the cost model's parameters are agreed by every rank, whatever
// each one measured or was told, so every rank chooses the same algorithms.
//  1. Each rank is given different values (OVERLAP_COST_MODEL set per rank): every rank
//     ends with the largest latency and the smallest bandwidth, and OVX_Algorithm names
//     the same algorithm on every rank for every collective, size and group size.
//  2. A malformed value on one rank only: every rank's call fails (none hangs), that rank
//     names the value, and the parameters stay as they were.
//  3. Measured (each pair of ranks sees its own link): identical bits on every rank,
//     positive and finite, "measured" on P > 1, the defaults on one rank.
//  4. After a liboverlap collective on one rank only, every rank's call fails and nothing
//     changes.
#include <mpi.h>

#include <cmath>
#include <cstdlib>
#include <string>
#include <vector>

#include "overlap/overlap.h"
#include "verdict.hpp"
#include "watchdog.hpp"

namespace {

using ovx_test::expect;

struct Model {
  double latency = 0, bandwidth = 0;
  std::string source;
};

Model current() {
  Model m;
  const char* source = nullptr;
  OVX_Get_cost_model(&m.latency, &m.bandwidth, &source);
  m.source = source != nullptr ? source : "(null)";
  return m;
}

// Every rank's OVX_Algorithm answers, concatenated, are rank 0's.
void expect_same_choices_everywhere(const std::string& when) {
  std::string mine;
  for (const char* op : {"bcast", "reduce", "allreduce", "allgather", "alltoall", "gather",
                         "scatter", "reduce_scatter_block"})
    for (long long bytes = 8; bytes <= (64LL << 20); bytes *= 4)
      for (int p : {3, 4, 8, 13, 64, 1000}) {
        const char* name = OVX_Algorithm(op, bytes, bytes / 8, p);
        mine += std::string(name != nullptr ? name : "NULL") + ";";
      }
  int len = static_cast<int>(mine.size());
  MPI_Bcast(&len, 1, MPI_INT, 0, MPI_COMM_WORLD);
  std::string root(static_cast<std::size_t>(len), ' ');
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0) root = mine;
  MPI_Bcast(root.data(), len, MPI_CHAR, 0, MPI_COMM_WORLD);
  expect(root == mine, when + ": OVX_Algorithm differs from rank 0's");
}

// The bits of the parameters are rank 0's on every rank.
void expect_same_model_everywhere(const Model& m, const std::string& when) {
  double mine[2] = {m.latency, m.bandwidth}, root[2] = {m.latency, m.bandwidth};
  MPI_Bcast(root, 2, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  expect(mine[0] == root[0] && mine[1] == root[1],
         when + ": parameters differ from rank 0's (latency " + std::to_string(mine[0]) + " vs " +
             std::to_string(root[0]) + ", bandwidth " + std::to_string(mine[1]) + " vs " +
             std::to_string(root[1]) + ")");
}

std::string error_text(int rc) {
  char text[MPI_MAX_ERROR_STRING];
  int len = 0;
  MPI_Error_string(rc, text, &len);
  return std::string(text, static_cast<std::size_t>(len));
}

}  // namespace

int main(int argc, char** argv) {
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  ovx_test::Watchdog dog(90, [] { return std::string("ovx-calibrate"); });

  const Model initial = current();
  expect(initial.source == "default", "before any calibration the source is " + initial.source);
  expect_same_choices_everywhere("defaults");

  // 1. Different values on every rank.
  const std::string given = "latency=" + std::to_string(3 * (rank + 1)) +
                            "us,bandwidth=" + std::to_string(20 - rank) + "GB/s";
  setenv("OVERLAP_COST_MODEL", given.c_str(), 1);
  int rc = OVX_Calibrate();
  expect(rc == MPI_SUCCESS, "OVX_Calibrate with " + given + ": " + error_text(rc));
  const Model told = current();
  expect(std::fabs(told.latency - 3e-6 * size) < 1e-12,
         "agreed latency " + std::to_string(told.latency) + " s, want the largest, " +
             std::to_string(3e-6 * size));
  expect(told.bandwidth == (20.0 - (size - 1)) * 1e9,
         "agreed bandwidth " + std::to_string(told.bandwidth) + ", want the smallest");
  expect(told.source == "OVERLAP_COST_MODEL", "source " + told.source);
  expect_same_model_everywhere(told, "given per rank");
  expect_same_choices_everywhere("given per rank");

  // 2. Malformed on the last rank only.
  if (rank == size - 1) setenv("OVERLAP_COST_MODEL", "latency=fast", 1);
  // (liboverlap's error classes are its own with MPICH: the text says what was refused.)
  rc = OVX_Calibrate();
  expect(rc != MPI_SUCCESS && error_text(rc).find("OVERLAP_COST_MODEL") != std::string::npos,
         "a malformed OVERLAP_COST_MODEL gave " + error_text(rc));
  if (rank == size - 1)
    expect(error_text(rc).find("latency=fast") != std::string::npos,
           "the refusal does not name the value: " + error_text(rc));
  const Model after_refusal = current();
  expect(after_refusal.latency == told.latency && after_refusal.bandwidth == told.bandwidth,
         "a refused calibration changed the parameters");

  // 3. Measured.
  unsetenv("OVERLAP_COST_MODEL");
  MPI_Barrier(MPI_COMM_WORLD);
  const double t0 = MPI_Wtime();
  rc = OVX_Calibrate();
  const double took = MPI_Wtime() - t0;
  expect(rc == MPI_SUCCESS, "OVX_Calibrate measuring: " + error_text(rc));
  const Model measured = current();
  expect(measured.source == (size > 1 ? "measured" : "default"),
         "measured source " + measured.source);
  expect(std::isfinite(measured.latency) && measured.latency > 0 && measured.latency < 1 &&
             std::isfinite(measured.bandwidth) && measured.bandwidth > 0,
         "measured latency " + std::to_string(measured.latency) + " s, bandwidth " +
             std::to_string(measured.bandwidth) + " B/s");
  expect_same_model_everywhere(measured, "measured");
  expect_same_choices_everywhere("measured");
  if (rank == 0)
    std::printf("measured on %d ranks in %.1f ms: latency %.2f us, bandwidth %.3f GB/s\n", size,
                took * 1e3, measured.latency * 1e6, measured.bandwidth / 1e9);

  // 4. A collective first, on rank 0 only (on MPI_COMM_SELF), then the calibration.
  if (rank == 0) {
    int x = 1, y = 0;
    MPI_Request r = MPI_REQUEST_NULL;
    expect(OVX_Iallreduce(&x, &y, 1, MPI_INT, MPI_SUM, MPI_COMM_SELF, &r) == MPI_SUCCESS,
           "OVX_Iallreduce on MPI_COMM_SELF");
    MPI_Wait(&r, MPI_STATUS_IGNORE);
  }
  setenv("OVERLAP_COST_MODEL", "latency=1ms,bandwidth=1MB/s", 1);
  rc = OVX_Calibrate();
  expect(rc != MPI_SUCCESS && error_text(rc).find("collective was called") != std::string::npos,
         "calibrating after a collective gave " + error_text(rc));
  const Model last = current();
  expect(last.latency == measured.latency && last.bandwidth == measured.bandwidth,
         "a calibration after a collective changed the parameters");

  const int code = ovx_test::verdict("ovx-calibrate");
  MPI_Finalize();
  return code;
}
