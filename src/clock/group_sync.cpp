#include "clock/group_sync.hpp"

#include <algorithm>
#include <array>
#include <stdexcept>

#include "clock/map_composition.hpp"
#include "mpi/polite_wait.hpp"

namespace overlap::clock {
namespace {

constexpr int kTag = 7;
constexpr double kPing = 0;
constexpr double kStop = 1;

// Client -> server message: {kind, client midpoint, server t2, rtt, client depth}.
using Request = std::array<double, 5>;

class MpiPingPong final : public PingPongChannel {
 public:
  MpiPingPong(MPI_Comm comm, int server, const ClockSource& clock)
      : comm_(comm), server_(server), clock_(clock) {}

  Exchange exchange() override {
    const Request ping{kPing, 0, 0, 0, 0};
    Exchange e;
    e.t1 = clock_.now();
    MPI_Send(ping.data(), static_cast<int>(ping.size()), MPI_DOUBLE, server_, kTag, comm_);
    mpi::recv_politely(&e.t2, 1, MPI_DOUBLE, server_, kTag, comm_);
    e.t3 = clock_.now();
    return e;
  }

 private:
  MPI_Comm comm_;
  int server_;
  const ClockSource& clock_;
};

std::array<double, 6> flatten(const EdgeMaps& m) {
  return {m.drift.x_ref,       m.drift.y_ref,       m.drift.slope,
          m.offset_only.x_ref, m.offset_only.y_ref, m.offset_only.slope};
}

}  // namespace

GroupSync::GroupSync(MPI_Comm comm, const ClockSource& clock, SyncScheme scheme,
                     EstimatorConfig config)
    : comm_(mpi::Communicator::duplicate(comm)),
      clock_(clock),
      scheme_(scheme),
      config_(config),
      schedule_(SyncSchedule::make(scheme, comm_.size())) {
  const mpi::NodeTopology topo = mpi::NodeTopology::detect(comm_.native_handle());
  for (const SyncRound& round : schedule_.rounds) {
    waves_.push_back(split_into_waves(round, topo.node_of, topo.cores));
  }
}

void GroupSync::act_as_client(int server, int& depth) {
  MpiPingPong channel(comm_.native_handle(), server, clock_);
  const OffsetEstimate est = estimate_offset(channel, config_);
  exchanges_ += est.exchanges;
  // The stop message hands the best exchange to the server, which owns the edge.
  const Request stop{kStop, est.best.client_midpoint(), est.best.t2, est.best.rtt(),
                     static_cast<double>(depth)};
  MPI_Send(stop.data(), static_cast<int>(stop.size()), MPI_DOUBLE, server, kTag,
           comm_.native_handle());
  double joined_depth = 0;
  mpi::recv_politely(&joined_depth, 1, MPI_DOUBLE, server, kTag, comm_.native_handle());
  depth = static_cast<int>(joined_depth);
}

void GroupSync::serve(int client, int& depth) {
  Request msg{};
  for (;;) {
    mpi::recv_politely(msg.data(), static_cast<int>(msg.size()), MPI_DOUBLE, client, kTag,
                       comm_.native_handle());
    if (msg[0] == kStop) break;
    const double t2 = clock_.now();
    MPI_Send(&t2, 1, MPI_DOUBLE, client, kTag, comm_.native_handle());
  }
  samples_.push_back({{msg[2], msg[1]}, msg[3]});
  // A pair sync is one step after the later of the two chains that led to it.
  depth = std::max(depth, static_cast<int>(msg[4])) + 1;
  const double joined_depth = depth;
  MPI_Send(&joined_depth, 1, MPI_DOUBLE, client, kTag, comm_.native_handle());
}

PassStats GroupSync::run_pass() {
  const int me = comm_.rank();
  std::int64_t exchanges_before = exchanges_;
  int depth = 0;
  mpi::barrier_politely(comm_.native_handle());
  const double start = clock_.now();
  for (const auto& waves : waves_) {
    for (std::size_t w = 0; w < waves.size(); ++w) {
      // Waves of one round must not overlap: that is their purpose.
      if (w > 0) mpi::barrier_politely(comm_.native_handle());
      for (const SyncPair& pair : waves[w]) {
        if (pair.client == me) act_as_client(pair.server, depth);
        if (pair.server == me) serve(pair.client, depth);
      }
    }
  }
  const double elapsed = clock_.now() - start;

  // Ranks that finished their pairs wait here while others still measure: politely.
  std::array<double, 2> global_max{elapsed, static_cast<double>(depth)};
  mpi::allreduce_politely(global_max.data(), 2, MPI_DOUBLE, MPI_MAX, comm_.native_handle());
  std::int64_t total = exchanges_ - exchanges_before;
  mpi::allreduce_politely(&total, 1, MPI_INT64_T, MPI_SUM, comm_.native_handle());
  return {global_max[0], static_cast<int>(global_max[1]), total};
}

RankClockModels GroupSync::models() const {
  const int size = comm_.size();
  const int me = comm_.rank();
  if (size == 1) return {};
  if (me != 0 && samples_.empty()) throw std::logic_error("GroupSync::models before any pass");

  const std::array<double, 6> mine = me == 0
                                         ? flatten({LinearMap::identity(), LinearMap::identity()})
                                         : flatten(fit_edge(samples_));
  std::vector<double> all(me == 0 ? 6 * static_cast<std::size_t>(size) : 0);
  MPI_Gather(mine.data(), 6, MPI_DOUBLE, all.data(), 6, MPI_DOUBLE, 0, comm_.native_handle());

  std::vector<double> composed(all.size());
  if (me == 0) {
    std::vector<LinearMap> drift_edges(static_cast<std::size_t>(size));
    std::vector<LinearMap> offset_edges(static_cast<std::size_t>(size));
    for (std::size_t r = 0; r < drift_edges.size(); ++r) {
      const double* m = &all[6 * r];
      drift_edges[r] = {m[0], m[1], m[2]};
      offset_edges[r] = {m[3], m[4], m[5]};
    }
    const auto drift = compose_to_root(schedule_.parent, drift_edges);
    const auto offset = compose_to_root(schedule_.parent, offset_edges);
    for (std::size_t r = 0; r < drift.size(); ++r) {
      const auto flat = flatten({drift[r], offset[r]});
      std::copy(flat.begin(), flat.end(), composed.begin() + static_cast<std::ptrdiff_t>(6 * r));
    }
  }
  std::array<double, 6> out{};
  MPI_Scatter(composed.data(), 6, MPI_DOUBLE, out.data(), 6, MPI_DOUBLE, 0, comm_.native_handle());
  return {ClockModel({out[0], out[1], out[2]}), ClockModel({out[3], out[4], out[5]})};
}

}  // namespace overlap::clock
