// Simulated clocks and links for testing the clock-sync pipeline without MPI.
//
// Every rank has a clock local = offset + rate * true_time (rate = 1 + drift) and a cursor:
// the true time up to which that rank is busy. A SimulatedChannel plays ping-pongs between a
// client and a server over a link whose one-way delays (in true time) are a base latency
// plus exponential jitter, separately for each direction. simulate_sync() then runs passes
// exactly like clock/group_sync.cpp does and feeds the samples to the same pure functions
// (estimate_offset, fit_edge, compose_to_root), so only the MPI transport is replaced.
#pragma once

#include <algorithm>
#include <cstdint>
#include <random>
#include <utility>
#include <vector>

#include "clock/clock_model.hpp"
#include "clock/edge_fit.hpp"
#include "clock/map_composition.hpp"
#include "clock/offset_estimator.hpp"
#include "clock/ping_pong.hpp"
#include "clock/sync_schedule.hpp"

namespace overlap::sim {

struct SimClock {
  double offset = 0;  // local reading at true time 0
  double rate = 1;    // 1 + drift

  double read(double true_time) const { return offset + rate * true_time; }
  double true_time_of(double local) const { return (local - offset) / rate; }
};

// One-way delays in true seconds. Forward is client -> server (the ping), back is server ->
// client (the answer). Jitter is exponential with the given mean; 0 means none.
struct Link {
  double base_forward = 2e-6;
  double jitter_forward = 0;
  double base_back = 2e-6;
  double jitter_back = 0;
};

class SimulatedWorld {
 public:
  SimulatedWorld(std::vector<SimClock> clocks, double start, Link link, std::uint64_t seed)
      : clocks_(std::move(clocks)), cursor_(clocks_.size(), start), link_(link), rng_(seed) {}

  int size() const { return static_cast<int>(clocks_.size()); }
  const SimClock& clock(int r) const { return clocks_[static_cast<std::size_t>(r)]; }
  double& cursor(int r) { return cursor_[static_cast<std::size_t>(r)]; }
  double latest() const { return *std::max_element(cursor_.begin(), cursor_.end()); }

  // Every rank waits until `t` (or until the busiest rank is done): sleep_until + barrier.
  void align_all(double t) {
    const double at = std::max(t, latest());
    std::fill(cursor_.begin(), cursor_.end(), at);
  }

  double forward_delay() { return link_.base_forward + jitter(link_.jitter_forward); }
  double back_delay() { return link_.base_back + jitter(link_.jitter_back); }

  // The true local -> global (rank 0's clock) map of rank r: what the sync should find.
  double true_global_of(int r, double local) const {
    return clock(0).read(clock(r).true_time_of(local));
  }

 private:
  double jitter(double mean) {
    if (mean <= 0) return 0;
    return std::exponential_distribution<double>(1.0 / mean)(rng_);
  }

  std::vector<SimClock> clocks_;
  std::vector<double> cursor_;
  Link link_;
  std::mt19937_64 rng_;
};

// Ping-pongs between two simulated ranks. Both are busy for the whole exchange; each
// exchange starts when the client's cursor says so and moves both cursors to its end.
class SimulatedChannel final : public clock::PingPongChannel {
 public:
  SimulatedChannel(SimulatedWorld& world, int client, int server)
      : world_(world), client_(client), server_(server) {}

  clock::Exchange exchange() override {
    const double sent = world_.cursor(client_);
    const double arrived = sent + world_.forward_delay();
    const double returned = arrived + world_.back_delay();
    world_.cursor(client_) = returned;
    world_.cursor(server_) = std::max(world_.cursor(server_), returned);
    return {world_.clock(client_).read(sent), world_.clock(server_).read(arrived),
            world_.clock(client_).read(returned)};
  }

 private:
  SimulatedWorld& world_;
  int client_;
  int server_;
};

// One pass of `schedule`, in the order group_sync.cpp runs it. Appends one sample per pass
// to samples[server] and returns the pass's sequential steps: a pair sync is one step after
// the later of its two ranks' chains, as GroupSync::serve counts it.
inline int run_pass(SimulatedWorld& world, const clock::SyncSchedule& schedule,
                    const clock::EstimatorConfig& config,
                    std::vector<std::vector<clock::EdgeSample>>& samples) {
  std::vector<int> depth(static_cast<std::size_t>(world.size()), 0);
  for (const clock::SyncRound& round : schedule.rounds) {
    for (const clock::SyncPair& pair : round) {
      // The pair starts when both ranks are free.
      const double start = std::max(world.cursor(pair.client), world.cursor(pair.server));
      world.cursor(pair.client) = start;
      world.cursor(pair.server) = start;
      SimulatedChannel channel(world, pair.client, pair.server);
      const clock::OffsetEstimate est = clock::estimate_offset(channel, config);
      samples[static_cast<std::size_t>(pair.server)].push_back(
          {est.server_to_client(), est.best.rtt()});
      auto& dc = depth[static_cast<std::size_t>(pair.client)];
      auto& ds = depth[static_cast<std::size_t>(pair.server)];
      dc = ds = std::max(dc, ds) + 1;
    }
  }
  return depth.empty() ? 0 : *std::max_element(depth.begin(), depth.end());
}

struct SyncOutcome {
  std::vector<clock::ClockModel> drift;                 // per rank: local -> global, all passes
  std::vector<clock::ClockModel> offset_only;           // per rank: latest pass only
  std::vector<int> steps;                               // per pass
  std::vector<std::vector<clock::EdgeSample>> samples;  // per server rank
  double first_pass_start = 0;                          // true time
  double last_pass_start = 0;
  double end = 0;  // true time when the last pass finished
};

// `passes` passes spread evenly over `span` true seconds, then the models of every rank,
// built by the same pure functions GroupSync::models uses.
inline SyncOutcome simulate_sync(SimulatedWorld& world, clock::SyncScheme scheme, int passes,
                                 double span, const clock::EstimatorConfig& config) {
  const int size = world.size();
  const clock::SyncSchedule schedule = clock::SyncSchedule::make(scheme, size);
  SyncOutcome out;
  out.samples.resize(static_cast<std::size_t>(size));
  out.first_pass_start = world.latest();
  for (int j = 0; j < passes; ++j) {
    const double target =
        passes > 1 ? out.first_pass_start + j * span / (passes - 1) : out.first_pass_start;
    world.align_all(target);
    out.last_pass_start = world.latest();
    out.steps.push_back(run_pass(world, schedule, config, out.samples));
  }
  out.end = world.latest();

  std::vector<clock::LinearMap> drift_edges(static_cast<std::size_t>(size));
  std::vector<clock::LinearMap> offset_edges(static_cast<std::size_t>(size));
  for (std::size_t r = 1; r < drift_edges.size(); ++r) {
    const clock::EdgeMaps m = clock::fit_edge(out.samples[r]);
    drift_edges[r] = m.drift;
    offset_edges[r] = m.offset_only;
  }
  for (const clock::LinearMap& m : clock::compose_to_root(schedule.parent, drift_edges)) {
    out.drift.emplace_back(m);
  }
  for (const clock::LinearMap& m : clock::compose_to_root(schedule.parent, offset_edges)) {
    out.offset_only.emplace_back(m);
  }
  return out;
}

// Hops from rank r to rank 0 along the schedule's parent links.
inline int hops_to_root(const clock::SyncSchedule& schedule, int r) {
  int hops = 0;
  for (int at = r; at != 0; at = schedule.parent[static_cast<std::size_t>(at)]) ++hops;
  return hops;
}

}  // namespace overlap::sim
