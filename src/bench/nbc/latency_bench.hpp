// `overlap-bench latency`: what a nonblocking collective costs when there is nothing to
// overlap. Every iteration starts from the sync barrier, runs the collective and waits for
// it at once (Icoll; MPI_Wait), and its latency is max end - min start over ranks in global
// time, interpolated between syncs taken before and after the point (as nbc). Iterations
// in which a rank left the barrier late are discarded and counted. The implementations
// asked for (MPI's MPI_I*, liboverlap's OVX_I*) run in turn inside every iteration, the
// first one rotating, so slow drifts of the machine reach them alike. Produces records;
// prints nothing.
#pragma once

#include <vector>

#include "bench/common/benchmark.hpp"
#include "bench/common/global_clock.hpp"
#include "bench/nbc/latency_record.hpp"

namespace overlap::bench {

// One (op, size) of a run. barrier has no size and gets one key, size 0.
struct LatencyKey {
  Collective op = Collective::bcast;
  long requested_bytes = 0;
};

// Every key of a run, in the order it measures them: op by op, sizes ascending.
std::vector<LatencyKey> latency_keys(const LatencyConfig& config);

// Collective; the points (one per implementation, config order) are complete on rank 0.
// A key whose buffers cannot be allocated (or whose count exceeds MPI's int) on any rank
// gives invalid points with the reason.
std::vector<LatencyPoint> measure_latency(GlobalClock& clock, const LatencyConfig& config,
                                          const LatencyKey& key);

const Benchmark<LatencyConfig, LatencyPoint>& latency_benchmark();

}  // namespace overlap::bench
