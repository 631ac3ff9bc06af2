// `overlap-bench coll`: the latency of blocking collectives measured in windows on the
// global clock (clock-sync paper, sec. 1.2-1.3 and 4: the SKaMPI/Netgauge/ReproMPI
// scheme). After a pilot from the sync barrier sets the window length, rank 0 fixes a
// start instant and every rank starts measurement k at start + k * window, global time,
// with no barrier in between. A window in which a rank arrived after its start, or whose
// collective ended after the window closed, is discarded and counted. Per kept window:
// max end - min start over ranks (the collective's time) and the slowest rank's own
// time; per rank, its own median. Beside it, the naive loop most benchmarks use
// (MPI_Barrier; t0; collective; t1, averaged), to show what the window method corrects.
// MPI's blocking collective and liboverlap's (OVX_I* + MPI_Wait) run side by side.
// Produces records; prints nothing.
#pragma once

#include <vector>

#include "bench/coll/coll_record.hpp"
#include "bench/common/benchmark.hpp"
#include "bench/common/global_clock.hpp"
#include "bench/common/operation.hpp"

namespace overlap::bench {

// One implementation at one (op, size), with its buffers ready. Collective; the point is
// complete on rank 0.
CollPoint measure_windows(GlobalClock& clock, const CollConfig& config, Operation& op);

const Benchmark<CollConfig, CollPoint>& coll_benchmark();

}  // namespace overlap::bench
