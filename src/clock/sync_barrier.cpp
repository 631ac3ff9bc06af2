#include "clock/sync_barrier.hpp"

#include <sched.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <thread>

#include "mpi/node_topology.hpp"
#include "mpi/polite_wait.hpp"

namespace overlap::clock {
namespace {

constexpr double kMinWindow = 50e-6;
constexpr double kMaxWindow = 1.0;
constexpr int kCalibrationRounds = 5;
// Sleep until this long before the deadline, then spin: sleeping ranks leave the cores to
// ranks that still wait for the deadline message, and the spin absorbs wake-up jitter.
constexpr double kSpinGuard = 200e-6;

}  // namespace

SyncBarrier::SyncBarrier(MPI_Comm comm, const ClockSource& clock, ClockModel model)
    : comm_(mpi::Communicator::duplicate(comm)), clock_(clock), model_(model) {
  const mpi::NodeTopology topo = mpi::NodeTopology::detect(comm_.native_handle());
  const int node = topo.node_of[static_cast<std::size_t>(comm_.rank())];
  const auto ranks_here = std::count(topo.node_of.begin(), topo.node_of.end(), node);
  oversubscribed_ = ranks_here > topo.cores[static_cast<std::size_t>(node)];
  // Time the agreement itself (reduce + bcast + a barrier for the slowest receiver), once
  // the first round has paid for what a first use costs: MPICH over UCX wires its
  // endpoints up on first use, which on the emulated cluster's paced link took long enough
  // (over 0.25 s) that the window started at its 1 s maximum and every barrier of the run
  // waited a second (the demo's sweep took 20 minutes instead of 40 s).
  agree_on_deadline();
  mpi::barrier_politely(comm_.native_handle());
  double slowest = 0;
  for (int i = 0; i < kCalibrationRounds; ++i) {
    const double start = clock_.now();
    agree_on_deadline();
    mpi::barrier_politely(comm_.native_handle());
    slowest = std::max(slowest, clock_.now() - start);
  }
  MPI_Allreduce(MPI_IN_PLACE, &slowest, 1, MPI_DOUBLE, MPI_MAX, comm_.native_handle());
  window_ = std::clamp(4 * slowest, kMinWindow, kMaxWindow);
  misses_ = 0;
}

double SyncBarrier::agree_on_deadline() {
  // Lateness of the previous call travels with this call's agreement: no extra messages
  // after the release, which would disturb whatever the caller measures next.
  double max_lateness = 0;
  MPI_Request request = MPI_REQUEST_NULL;
  MPI_Ireduce(&pending_lateness_, &max_lateness, 1, MPI_DOUBLE, MPI_MAX, 0, comm_.native_handle(),
              &request);
  mpi::wait_politely(request);
  std::array<double, 3> decision{};  // {deadline, window, misses}
  if (comm_.rank() == 0) {
    if (max_lateness > 0) {
      window_ = std::min(kMaxWindow, std::max(2 * window_, window_ + 2 * max_lateness));
      ++misses_;
    }
    decision = {model_.to_global(clock_.now()) + window_, window_, static_cast<double>(misses_)};
  }
  MPI_Ibcast(decision.data(), 3, MPI_DOUBLE, 0, comm_.native_handle(), &request);
  mpi::wait_politely(request);
  window_ = decision[1];
  misses_ = static_cast<long>(decision[2]);
  return decision[0];
}

BarrierExit SyncBarrier::wait() {
  const double deadline = model_.to_local(agree_on_deadline());
  double now = clock_.now();
  if (now > deadline) {
    pending_lateness_ = now - deadline;
    return {now, true};
  }
  pending_lateness_ = 0;
  if (deadline - now > kSpinGuard) {
    std::this_thread::sleep_for(std::chrono::duration<double>(deadline - now - kSpinGuard));
  }
  // Oversubscribed, a pure spin would keep ranks that share our core off it until after
  // the deadline; yielding lets each of them look at the clock in turn.
  while (now < deadline) {
    if (oversubscribed_) sched_yield();
    now = clock_.now();
  }
  return {now, false};
}

}  // namespace overlap::clock
