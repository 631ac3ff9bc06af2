#include "bench/nbc/peer_protocol.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <vector>

#include "mpi/polite_wait.hpp"

namespace overlap::bench {
namespace {

// Per rank, gathered to rank 0 (the order of PeerRank's members).
constexpr int kPeerFields = 10;

// Runs `body(measured)` warmup + iterations times with a barrier after each, as both
// peers' loops do; `measured` is false during the warm-up.
template <class Body>
void loop(MPI_Comm comm, const PeerPhaseConfig& c, Body body) {
  for (int i = -c.warmup; i < c.iterations; ++i) {
    body(i >= 0);
    mpi::barrier_politely(comm);
  }
}

// OSU: each rank computes for its own pure time (latency_in_secs), time-based.
void osu_loop(GlobalClock& clock, Operation& op, compute::PeerKernel& kernel,
              const PeerPhaseConfig& c, PeerRank& me) {
  const double n = c.iterations;
  loop(clock.comm(), c, [&](bool measured) {
    double test = 0;
    const double t0 = clock.now();
    op.start();
    const double t1 = clock.now();
    kernel.run_for(me.pure_s, c.test_calls, [&] {
      const double s = clock.now();
      op.test();
      test += clock.now() - s;
    });
    const double t2 = clock.now();
    op.wait();
    const double t3 = clock.now();
    if (!measured) return;
    me.osu_overall_s += (t3 - t0) / n;
    me.osu_init_s += (t1 - t0) / n;
    me.osu_compute_s += (t2 - t1) / n;
    me.osu_test_s += test / n;
    me.osu_wait_s += (t3 - t2) / n;
  });
}

// IMB: the work the rank's own rate does in its own pure time, fixed for the loop; the
// initialisation call runs it once, as IMB_cpu_exploit(t_pure, 1) does.
void imb_loop(GlobalClock& clock, Operation& op, compute::PeerKernel& kernel,
              const PeerPhaseConfig& c, PeerRank& me) {
  const double n = c.iterations;
  me.imb_steps_per_second = kernel.steps_per_second();
  me.imb_steps = std::max(1L, static_cast<long>(std::floor(me.pure_s * me.imb_steps_per_second)));
  kernel.run_steps(me.imb_steps);
  mpi::barrier_politely(clock.comm());
  loop(clock.comm(), c, [&](bool measured) {
    const double t0 = clock.now();
    op.start();
    const double t1 = clock.now();
    kernel.run_steps(me.imb_steps);
    const double t2 = clock.now();
    op.wait();
    const double t3 = clock.now();
    if (!measured) return;
    me.imb_overall_s += (t3 - t0) / n;
    me.imb_compute_s += (t2 - t1) / n;
  });
}

// Every rank's means, on rank 0.
PeerPhase gather(GlobalClock& clock, const PeerPhaseConfig& c, const PeerRank& me) {
  const std::array<double, kPeerFields> mine{me.pure_s,
                                             me.osu_overall_s,
                                             me.osu_init_s,
                                             me.osu_compute_s,
                                             me.osu_test_s,
                                             me.osu_wait_s,
                                             me.imb_overall_s,
                                             me.imb_compute_s,
                                             static_cast<double>(me.imb_steps),
                                             me.imb_steps_per_second};
  std::vector<double> all(clock.rank() == 0 ? static_cast<std::size_t>(clock.size()) * kPeerFields
                                            : 0);
  MPI_Gather(mine.data(), kPeerFields, MPI_DOUBLE, all.data(), kPeerFields, MPI_DOUBLE, 0,
             clock.comm());
  PeerPhase phase{c.iterations, c.warmup, c.test_calls, 0, {}};
  if (clock.rank() != 0) return phase;
  for (int r = 0; r < clock.size(); ++r) {
    const double* f = &all[static_cast<std::size_t>(r) * kPeerFields];
    phase.ranks.push_back(
        {f[0], f[1], f[2], f[3], f[4], f[5], f[6], f[7], std::lround(f[8]), f[9]});
  }
  return phase;
}

}  // namespace

PeerPhase run_peer_protocols(GlobalClock& clock, Operation& op, compute::PeerKernel& kernel,
                             const PeerPhaseConfig& c) {
  PeerRank me;
  mpi::barrier_politely(clock.comm());
  loop(clock.comm(), c, [&](bool measured) {
    const double t0 = clock.now();
    op.start();
    op.wait();
    if (measured) me.pure_s += clock.now() - t0;
  });
  me.pure_s /= c.iterations;
  osu_loop(clock, op, kernel, c, me);
  imb_loop(clock, op, kernel, c, me);
  return gather(clock, c, me);
}

}  // namespace overlap::bench
