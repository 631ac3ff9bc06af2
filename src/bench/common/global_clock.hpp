// The drift-aware global clock a benchmark run stands on (nbc-overlap paper, sec. 4.2;
// clock-sync paper, sec. 3): two group-sync passes apart in time give every rank a line
// from its clock to rank 0's; the sync barrier releases all ranks at one global instant;
// a re-sync after each measured point lets its timestamps be interpolated between syncs
// rather than extrapolated. Every benchmark that times collectives uses this one class.
#pragma once

#include <mpi.h>

#include <memory>

#include "clock/clock_model.hpp"
#include "clock/clock_source.hpp"
#include "clock/offset_estimator.hpp"

namespace overlap::clock {
class GroupSync;
class SyncBarrier;
}  // namespace overlap::clock

namespace overlap::bench {

// How good the clock was, recorded in result files' metadata.
struct ClockSyncQuality {
  int passes = 0;
  double max_rtt_s = 0;         // worst min-RTT of the last pass over ranks: bounds offset error
  long barrier_late = 0;        // sync barrier calls in which a rank was late
  double barrier_window_s = 0;  // the barrier's current window
};

class GlobalClock {
 public:
  // Collective: two sync passes `sync_span_s` apart, then the sync barrier.
  GlobalClock(MPI_Comm comm, const clock::ClockSource& source, clock::EstimatorConfig estimator,
              double sync_span_s);
  ~GlobalClock();
  GlobalClock(const GlobalClock&) = delete;
  GlobalClock& operator=(const GlobalClock&) = delete;

  MPI_Comm comm() const { return comm_; }
  int rank() const { return rank_; }
  int size() const { return size_; }
  double now() const { return source_.now(); }  // local

  // Collective: the sync barrier. True when this rank left it late (it learnt the
  // deadline after it had passed), in which case the ranks did not start together.
  bool barrier();

  // Collective: a global instant `ahead_s` from now, the same on every rank (rank 0's).
  double agree_on_instant(double ahead_s);
  // Spins until the global instant `t`. True when it had already passed (late).
  bool wait_until(double t) const;

  // Collective: one more sync pass; to_global() then interpolates earlier timestamps.
  void resync();
  double to_global(double local) const { return model_.to_global(local); }

  ClockSyncQuality quality() const;

 private:
  void update_rtt();

  MPI_Comm comm_;
  int rank_ = 0;
  int size_ = 1;
  const clock::ClockSource& source_;
  std::unique_ptr<clock::GroupSync> sync_;
  std::unique_ptr<clock::SyncBarrier> barrier_;
  clock::ClockModel model_;
  int passes_ = 0;
  double max_rtt_ = 0;
  bool oversubscribed_ = false;
};

}  // namespace overlap::bench
