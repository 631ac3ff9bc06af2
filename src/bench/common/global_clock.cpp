#include "bench/common/global_clock.hpp"

#include <sched.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <thread>

#include "clock/group_sync.hpp"
#include "clock/sync_barrier.hpp"
#include "mpi/node_topology.hpp"

namespace overlap::bench {
namespace {

// As the sync barrier: sleep until shortly before the instant, then spin.
constexpr double kSpinGuard = 200e-6;

}  // namespace

GlobalClock::GlobalClock(MPI_Comm comm, const clock::ClockSource& source,
                         clock::EstimatorConfig estimator, double sync_span_s)
    : comm_(comm), source_(source) {
  MPI_Comm_rank(comm, &rank_);
  MPI_Comm_size(comm, &size_);
  sync_ = std::make_unique<clock::GroupSync>(comm, source, clock::SyncScheme::log, estimator);
  sync_->run_pass();
  const double first = source.now();
  while (source.now() - first < sync_span_s) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  sync_->run_pass();
  passes_ = 2;
  update_rtt();
  model_ = sync_->models().drift;
  barrier_ = std::make_unique<clock::SyncBarrier>(comm, source, model_);
  const mpi::NodeTopology topo = mpi::NodeTopology::detect(comm);
  const int node = topo.node_of[static_cast<std::size_t>(rank_)];
  const auto here = std::count(topo.node_of.begin(), topo.node_of.end(), node);
  oversubscribed_ = here > topo.cores[static_cast<std::size_t>(node)];
}

GlobalClock::~GlobalClock() = default;

bool GlobalClock::barrier() { return barrier_->wait().late; }

double GlobalClock::agree_on_instant(double ahead_s) {
  double t = rank_ == 0 ? model_.to_global(source_.now()) + ahead_s : 0.0;
  MPI_Bcast(&t, 1, MPI_DOUBLE, 0, comm_);
  return t;
}

bool GlobalClock::wait_until(double t) const {
  const double deadline = model_.to_local(t);
  double now = source_.now();
  if (now > deadline) return true;
  if (deadline - now > kSpinGuard) {
    std::this_thread::sleep_for(std::chrono::duration<double>(deadline - now - kSpinGuard));
  }
  while (now < deadline) {
    if (oversubscribed_) sched_yield();  // let ranks sharing our core see the clock too
    now = source_.now();
  }
  return false;
}

void GlobalClock::resync() {
  sync_->run_pass();
  ++passes_;
  model_ = sync_->models().drift;
  barrier_->set_model(model_);
  update_rtt();
}

void GlobalClock::update_rtt() {
  double rtt = sync_->samples().empty() ? 0.0 : sync_->samples().back().rtt;
  MPI_Allreduce(MPI_IN_PLACE, &rtt, 1, MPI_DOUBLE, MPI_MAX, comm_);
  max_rtt_ = rtt;
}

ClockSyncQuality GlobalClock::quality() const {
  return {passes_, max_rtt_, barrier_->misses(), barrier_->window()};
}

}  // namespace overlap::bench
