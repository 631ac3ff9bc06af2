// A barrier that releases every rank at the same global instant (nbc-overlap paper,
// sec. 4.2): rank 0 picks a deadline `window` ahead in global time, broadcasts it, and
// each rank spins on its own clock until the deadline mapped to local time. A rank that
// only learns the deadline after it passed is late: it says so in its result, and the
// window grows before the next call. MPI_Barrier gives no such exit guarantee.
#pragma once

#include <mpi.h>

#include "clock/clock_model.hpp"
#include "clock/clock_source.hpp"
#include "mpi/communicator.hpp"

namespace overlap::clock {

struct BarrierExit {
  double local_time = 0;  // this rank's clock when it left
  bool late = false;      // the deadline had passed when this rank learnt it
};

class SyncBarrier {
 public:
  // Collective. `model` maps this rank's clock to global time (extrapolated from past
  // syncs). The first window is a few times the measured cost of the deadline agreement.
  SyncBarrier(MPI_Comm comm, const ClockSource& clock, ClockModel model);

  // Collective.
  BarrierExit wait();

  // A better line from a newer sync; takes effect at the next wait().
  void set_model(ClockModel model) { model_ = model; }
  double window() const { return window_; }
  long misses() const { return misses_; }  // calls in which at least one rank was late

 private:
  double agree_on_deadline();

  mpi::Communicator comm_;
  const ClockSource& clock_;
  ClockModel model_;
  double window_ = 0;
  long misses_ = 0;
  double pending_lateness_ = 0;  // how late this rank was last time; reported next call
  bool oversubscribed_ = false;  // more ranks than cores on this node: yield while spinning
};

}  // namespace overlap::clock
