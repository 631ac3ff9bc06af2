#include "bench/latency_bench.hpp"

#include <fmt/format.h>

#include <cstddef>
#include <limits>
#include <new>
#include <stdexcept>

#include "measure/statistics.hpp"
#include "mpi/agree_on_failure.hpp"

namespace overlap::bench {
namespace {

// Gives every implementation its buffers; returns why this rank cannot, or "".
std::string prepare(std::vector<NbcOperation>& ops, long elements, long msg_bytes, int rank) {
  for (NbcOperation& op : ops) {
    if (!op.has_size()) continue;
    if (elements < 1) {
      return fmt::format("{} B is less than one element of {} ({} B)", msg_bytes,
                         to_string(op.op()), op.element_bytes());
    }
    // With no memory limit, max_elements() is the largest count MPI's int can carry.
    const long most = op.max_elements(std::numeric_limits<double>::infinity());
    if (elements > most) {
      return fmt::format("{} elements of {} exceed MPI's int counts (at most {} here)", elements,
                         to_string(op.op()), most);
    }
    try {
      op.resize(elements);
    } catch (const std::bad_alloc&) {
      return fmt::format("cannot allocate the buffers for {} B messages on rank {}", msg_bytes,
                         rank);
    } catch (const std::length_error&) {
      return fmt::format("the buffers for {} B messages are too large on rank {}", msg_bytes, rank);
    }
  }
  return "";
}

// Every implementation once, each from a barrier. The first one rotates with `round` so
// that none always runs right after the previous round's reduction.
void run_round(MPI_Comm comm, std::vector<NbcOperation>& ops, int round,
               std::vector<double>& local) {
  const std::size_t n = ops.size();
  for (std::size_t k = 0; k < n; ++k) {
    const std::size_t i = (static_cast<std::size_t>(round) + k) % n;
    MPI_Barrier(comm);
    const double t0 = MPI_Wtime();
    MPI_Request req = ops[i].start();
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    local[i] = MPI_Wtime() - t0;
  }
}

// `samples[i]`: the per-iteration latencies of `impls[i]`.
void summarise(const std::vector<NbcImpl>& impls, const std::vector<std::vector<double>>& samples,
               LatencyPointRecord& rec) {
  for (std::size_t i = 0; i < impls.size(); ++i) {
    rec.times.push_back({impls[i], measure::median(samples[i]), measure::quantile(samples[i], 0.25),
                         measure::quantile(samples[i], 0.75)});
  }
  const LatencyTimes* mpi = rec.times_of(NbcImpl::mpi);
  const LatencyTimes* ovx = rec.times_of(NbcImpl::overlap);
  if (mpi && ovx && mpi->median_s > 0) rec.ratio = ovx->median_s / mpi->median_s;
}

}  // namespace

std::vector<LatencyKey> latency_points(const LatencyConfig& config) {
  std::vector<LatencyKey> keys;
  for (NbcOp op : config.ops) {
    if (op == NbcOp::ibarrier) {
      keys.push_back({op, 0});
      continue;
    }
    for (long bytes : config.sizes_bytes) keys.push_back({op, bytes});
  }
  return keys;
}

const LatencyTimes* LatencyPointRecord::times_of(NbcImpl impl) const {
  for (const LatencyTimes& t : times) {
    if (t.impl == impl) return &t;
  }
  return nullptr;
}

LatencyPointRecord measure_latency(MPI_Comm comm, const LatencyConfig& config,
                                   const LatencyKey& key) {
  const double started = MPI_Wtime();
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  LatencyPointRecord rec;
  rec.key = key;
  rec.element_bytes = element_bytes(key.op);
  const long elements = key.requested_bytes / rec.element_bytes;
  rec.msg_bytes = elements * rec.element_bytes;

  std::vector<NbcOperation> ops;
  ops.reserve(config.impls.size());
  for (NbcImpl impl : config.impls) ops.emplace_back(key.op, impl, comm);
  rec.invalid_reason = mpi::agree_on_failure(comm, prepare(ops, elements, rec.msg_bytes, rank));
  if (!rec.invalid_reason.empty()) {
    rec.elapsed_s = MPI_Wtime() - started;
    return rec;
  }

  std::vector<double> local(ops.size()), slowest(ops.size());
  for (int w = 0; w < config.warmup; ++w) run_round(comm, ops, w, local);
  std::vector<std::vector<double>> samples(ops.size());
  for (int it = 0; it < config.iterations; ++it) {
    run_round(comm, ops, it, local);
    MPI_Allreduce(local.data(), slowest.data(), static_cast<int>(ops.size()), MPI_DOUBLE, MPI_MAX,
                  comm);
    for (std::size_t i = 0; i < ops.size(); ++i) samples[i].push_back(slowest[i]);
  }
  summarise(config.impls, samples, rec);
  rec.valid = true;
  rec.iterations = config.iterations;
  rec.elapsed_s = MPI_Wtime() - started;
  return rec;
}

}  // namespace overlap::bench
