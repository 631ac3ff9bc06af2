#include "collectives/calibration.hpp"

#include <mpi.h>

#include <algorithm>
#include <cfloat>
#include <cstdlib>
#include <vector>

#include "progress/engine_runtime.hpp"

namespace overlap::collectives {
namespace {

constexpr int kSmallTrips = 30;
constexpr int kLargeTrips = 3;
constexpr int kLargeBytes = 512 * 1024;

// The fastest of `trips` round trips of `bytes` (after one to warm up), as seen by the
// rank that starts them (`first`); 0 on its partner.
double fastest_round_trip(MPI_Comm c, int peer, bool first, int bytes, int trips) {
  std::vector<char> buf(static_cast<std::size_t>(bytes));
  double best = DBL_MAX;
  for (int t = 0; t <= trips; ++t) {
    if (first) {
      const double t0 = PMPI_Wtime();
      PMPI_Send(buf.data(), bytes, MPI_BYTE, peer, 0, c);
      PMPI_Recv(buf.data(), bytes, MPI_BYTE, peer, 0, c, MPI_STATUS_IGNORE);
      if (t > 0) best = std::min(best, PMPI_Wtime() - t0);
    } else {
      PMPI_Recv(buf.data(), bytes, MPI_BYTE, peer, 0, c, MPI_STATUS_IGNORE);
      PMPI_Send(buf.data(), bytes, MPI_BYTE, peer, 0, c);
    }
  }
  return first ? best : 0;
}

// This rank's measurement: its link to its partner, or nothing (a neutral element of
// combine) on the rank left without one.
CostParams measure(MPI_Comm c) {
  int rank = 0, size = 1;
  PMPI_Comm_rank(c, &rank);
  PMPI_Comm_size(c, &size);
  CostParams none{0, DBL_MAX, CostSource::measured};
  const int half = size / 2;
  if (half == 0 || rank >= 2 * half) return none;
  const bool first = rank < half;
  const int peer = first ? rank + half : rank - half;
  const double small = fastest_round_trip(c, peer, first, 8, kSmallTrips);
  const double large = fastest_round_trip(c, peer, first, kLargeBytes, kLargeTrips);
  if (!first) return none;
  CostParams p;
  p.source = CostSource::measured;
  p.latency_s = small / 2;
  // The large message's one-way time less the latency moves kLargeBytes.
  const double transfer = std::max(large / 2 - p.latency_s, large / 4);
  p.bandwidth = kLargeBytes / transfer;
  return p;
}

}  // namespace

void push_link_model() {
  const CostParams p = process_cost_params();
  progress::set_engine_link_model({p.latency_s, p.bandwidth});
}

int calibrate_world(std::string& error) {
  const char* env = std::getenv("OVERLAP_COST_MODEL");
  const CostModelSetting setting = parse_cost_model(env == nullptr ? "" : env);
  // What blocks the calibration, agreed first: a malformed setting, a collective called.
  int mine[3] = {setting.error.empty() ? 0 : 1, collective_called() ? 1 : 0,
                 setting.measure ? 1 : 0};
  int all[3] = {};
  if (const int rc = PMPI_Allreduce(mine, all, 3, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
      rc != MPI_SUCCESS) {
    error = "the ranks could not agree on the cost model (MPI_Allreduce failed)";
    return rc;
  }
  if (all[0] != 0) {
    error =
        !setting.error.empty() ? setting.error : "OVERLAP_COST_MODEL is malformed on another rank";
    return MPI_ERR_ARG;
  }
  if (all[1] != 0) {
    error =
        "a liboverlap collective was called before the calibration (on this or another "
        "rank): its parameters stay as they were";
    return MPI_ERR_OTHER;
  }
  CostParams p = setting.given.value_or(CostParams{});
  if (all[2] != 0) {
    // Every rank takes part in the ping-pongs; a rank told its values keeps them.
    int rank = 0;
    PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm c = MPI_COMM_NULL;
    // Where the error handler returns, a rank whose split failed must not leave the others
    // waiting in the ping-pong: they agree on it first.
    int made = PMPI_Comm_split(MPI_COMM_WORLD, 0, rank, &c) == MPI_SUCCESS ? 1 : 0, all_made = 0;
    if (PMPI_Allreduce(&made, &all_made, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD) != MPI_SUCCESS ||
        !all_made) {
      if (c != MPI_COMM_NULL) PMPI_Comm_free(&c);
      error = "could not make a communicator to measure on (MPI_Comm_split failed on a rank)";
      return MPI_ERR_OTHER;
    }
    const CostParams measured = measure(c);
    PMPI_Comm_free(&c);
    if (setting.measure) p = measured;
  }
  // Every rank folds every rank's parameters in rank order: the same answer everywhere.
  int size = 1;
  PMPI_Comm_size(MPI_COMM_WORLD, &size);
  const double in[3] = {p.latency_s, p.bandwidth, static_cast<double>(p.source)};
  std::vector<double> every(3 * static_cast<std::size_t>(size));
  if (const int rc = PMPI_Allgather(in, 3, MPI_DOUBLE, every.data(), 3, MPI_DOUBLE, MPI_COMM_WORLD);
      rc != MPI_SUCCESS) {
    error = "the ranks could not agree on the cost model (MPI_Allgather failed)";
    return rc;
  }
  CostParams agreed{0, DBL_MAX, CostSource::defaults};
  for (std::size_t r = 0; r < every.size(); r += 3)
    agreed = combine(
        agreed, {every[r], every[r + 1], static_cast<CostSource>(static_cast<int>(every[r + 2]))});
  // Nothing measured anywhere (one rank): the defaults, said so.
  if (agreed.latency_s <= 0 || agreed.bandwidth >= DBL_MAX) agreed = CostParams{};
  set_process_cost_params(agreed);
  push_link_model();
  return MPI_SUCCESS;
}

}  // namespace overlap::collectives
