// `overlap-bench latency`: what a nonblocking collective costs when there is nothing to
// overlap. Each measurement is MPI_Barrier, then the collective started and waited for at
// once (Icoll; MPI_Wait), timed with MPI_Wtime on every rank; the iteration's latency is
// the maximum over ranks (the slowest rank sets the pace). The implementations asked for
// (MPI's MPI_I*, liboverlap's OVX_I*) run in turn inside every iteration, so slow drifts
// of the machine reach them alike. Produces records; prints nothing.
#pragma once

#include <mpi.h>

#include <optional>
#include <string>
#include <vector>

#include "bench/nbc_op.hpp"

namespace overlap::bench {

struct LatencyConfig {
  std::vector<NbcOp> ops;
  std::vector<long> sizes_bytes;  // asked for, per rank, with NbcOperation's msg_bytes meaning
  std::vector<NbcImpl> impls{NbcImpl::mpi, NbcImpl::overlap};
  std::string progress = "shared";  // liboverlap's policy (recorded)
  int iterations = 20;
  int warmup = 3;
};

// One point: an op at one size. ibarrier has no size and gets one point, size 0.
struct LatencyKey {
  NbcOp op = NbcOp::ibcast;
  long requested_bytes = 0;
};

// Every point of a run, in the order it measures them: op by op, sizes ascending.
std::vector<LatencyKey> latency_points(const LatencyConfig& config);

// One implementation at one point: the spread over iterations of the per-iteration
// maximum over ranks.
struct LatencyTimes {
  NbcImpl impl = NbcImpl::mpi;
  double median_s = 0;
  double p25_s = 0;
  double p75_s = 0;
};

struct LatencyPointRecord {
  LatencyKey key;
  int element_bytes = 1;
  long msg_bytes = 0;  // requested_bytes rounded down to whole elements
  bool valid = false;
  std::string invalid_reason;  // one line; empty when valid
  int iterations = 0;
  std::vector<LatencyTimes> times;  // one per impl, config order; empty when invalid
  std::optional<double> ratio;      // median(overlap) / median(mpi) when both were measured
  double elapsed_s = 0;

  const LatencyTimes* times_of(NbcImpl impl) const;
};

// Collective over `comm`; every rank returns the same record. A point whose buffers cannot
// be allocated (or whose count exceeds MPI's int) on any rank is invalid with the reason.
LatencyPointRecord measure_latency(MPI_Comm comm, const LatencyConfig& config,
                                   const LatencyKey& key);

}  // namespace overlap::bench
