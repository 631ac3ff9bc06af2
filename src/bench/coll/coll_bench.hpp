// `overlap-bench coll`: the latency of blocking collectives measured in windows on the
// global clock (clock-sync paper, sec. 1.2-1.3 and 4: the SKaMPI/Netgauge/ReproMPI
// scheme). After a pilot from the sync barrier sets the window length, rank 0 fixes a
// start instant and every rank starts measurement k at start + k * window, global time,
// with no barrier in between. A window in which a rank arrived after its start, or whose
// collective ended after the window closed, is discarded and counted; an overrun widens the
// window and restarts the sample (measure/window_policy). Per kept window:
// max end - min start over ranks (the collective's time) and the slowest rank's own
// time; per rank, its own median. Beside it, the naive loop most benchmarks use
// (MPI_Barrier; t0; collective; t1, averaged), to show what the window method corrects.
// MPI's blocking collective and liboverlap's (OVX_I* + MPI_Wait) run side by side.
// Produces records; prints nothing.
#pragma once

#include <memory>
#include <optional>
#include <vector>

#include "bench/coll/coll_record.hpp"
#include "bench/common/benchmark.hpp"
#include "bench/common/global_clock.hpp"
#include "bench/common/operation.hpp"
#include "measure/window_policy.hpp"

namespace overlap::bench {

struct RawBatch;

// One implementation's windows at one (op, size): the batches of its final sample, on each
// rank's local clock, and the counts of what was dropped on the way.
struct WindowRun {
  std::vector<std::shared_ptr<const RawBatch>> kept;
  // Windows run, and those dropped batches discarded or restarted (the kept batches'
  // discards are counted again when they are finished, from the interpolated clock).
  measure::WindowTally tally;
  double window_s = 0;
  std::optional<double> naive_mean_s, naive_max_s;  // the MPI_Barrier loop, when asked
};

// Runs the windows of one implementation at one (op, size), with its buffers ready, and the
// naive loop. Collective.
WindowRun run_window_batches(GlobalClock& clock, const CollConfig& config, Operation& op);
// After the point's re-sync: the record, its times converted by interpolation. Collective;
// the point is complete on rank 0.
CollPoint finish_windows(GlobalClock& clock, const WindowRun& run);

const Benchmark<CollConfig, CollPoint>& coll_benchmark();

}  // namespace overlap::bench
