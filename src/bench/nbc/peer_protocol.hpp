// The OSU and IMB columns of an nbc point, measured with each peer's own protocol
// (docs/nbc-benchmark.md, "OSU's and IMB's overlap, with their own protocols"). Both
// peers size each rank's dummy computation to that rank's OWN pure communication time, not
// to a common target: a rooted collective's root gets a short computation, a leaf a long
// one. nbc's own computation is one GEMM size for every rank, calibrated on the slowest,
// so the peers' formulas on nbc's iterations (osu_on_nbc_times_pct) are not what they
// would print; this phase is.
//   pure: per iteration Icoll; Wait, timed locally, then MPI_Barrier; the rank's mean. OSU
//     (osu_ibcast.c) and IMB (IMB_ibcast_pure) time it the same way; measured once here
//     for both.
//   OSU 7.4: per iteration t0; Icoll; dummy_compute(pure), time-based on one thread, with
//     --test-interval's MPI_Test calls as its -t probes; Wait; t1; MPI_Barrier.
//   IMB-NBC: IMB_cpu_exploit(pure, 1) sizes the work to the rank's rate, then per iteration
//     t0; Icoll; the same amount of work; Wait; t1; MPI_Barrier.
// The barriers are MPI_Ibarrier waited politely (mpi/polite_wait.hpp), so ranks that share
// cores do not spin against each other; outside every timed region, like the peers'.
// Collective over the clock's communicator; the phase is complete on rank 0 only.
#pragma once

#include "bench/common/global_clock.hpp"
#include "bench/common/operation.hpp"
#include "bench/nbc/peer_record.hpp"
#include "compute/peer_kernel.hpp"

namespace overlap::bench {

struct PeerPhaseConfig {
  int iterations = 10;
  int warmup = 2;
  int test_calls = 0;  // MPI_Test calls per OSU computation (0: none)
};

PeerPhase run_peer_protocols(GlobalClock& clock, Operation& op, compute::PeerKernel& kernel,
                             const PeerPhaseConfig& config);

}  // namespace overlap::bench
