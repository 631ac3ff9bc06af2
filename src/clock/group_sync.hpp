// Group clock synchronisation over MPI: every rank learns a line from its clock to rank
// 0's. Each pass runs the scheme's rounds of min-RTT ping-pongs; the server of each pair
// keeps one sample per pass. Two or more passes spread over time give every edge a drift;
// models() composes the edges to rank 0 (gather, compose, scatter).
#pragma once

#include <mpi.h>

#include <cstdint>
#include <vector>

#include "clock/clock_model.hpp"
#include "clock/clock_source.hpp"
#include "clock/edge_fit.hpp"
#include "clock/offset_estimator.hpp"
#include "clock/sync_schedule.hpp"
#include "mpi/communicator.hpp"
#include "mpi/node_topology.hpp"

namespace overlap::clock {

struct PassStats {
  double duration_s = 0;       // max over ranks of the time from a common start to the end
  int sequential_steps = 0;    // longest chain of dependent pair syncs, as measured
  std::int64_t exchanges = 0;  // ping-pongs made by all ranks
};

struct RankClockModels {
  ClockModel drift;        // fitted through all passes
  ClockModel offset_only;  // latest pass only, drift ignored
};

class GroupSync {
 public:
  GroupSync(MPI_Comm comm, const ClockSource& clock, SyncScheme scheme, EstimatorConfig config);

  // Collective. One pass of the scheme; returns the same stats on every rank.
  PassStats run_pass();

  // Collective. This rank's models; identity on rank 0. Needs at least one pass.
  RankClockModels models() const;

  // Samples of the edge this rank is the server of (empty on rank 0), one per pass.
  const std::vector<EdgeSample>& samples() const { return samples_; }
  SyncScheme scheme() const { return scheme_; }

 private:
  void serve(int client, int& depth);
  void act_as_client(int server, int& depth);

  mpi::Communicator comm_;
  const ClockSource& clock_;
  SyncScheme scheme_;
  EstimatorConfig config_;
  SyncSchedule schedule_;
  std::vector<std::vector<SyncRound>> waves_;  // per round, see split_into_waves
  std::vector<EdgeSample> samples_;
  std::int64_t exchanges_ = 0;
};

}  // namespace overlap::clock
