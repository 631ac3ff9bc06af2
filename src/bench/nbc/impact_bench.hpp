// `overlap-bench impact`: r_MPI_impact (nbc-overlap paper, sec. 3.2.1), how much an idle
// but initialised MPI library slows the computation, e.g. a progress thread polling on a
// core the computation needs. The same calibrated computation, all threads busy, is timed
// before MPI_Init and again after it with MPI idle. Two halves because MPI_Init sits
// between them: the first runs on every rank with no MPI at all.
#pragma once

#include <mpi.h>

#include <string>
#include <vector>

#include "bench/common/benchmark.hpp"
#include "bench/common/cpu_record.hpp"
#include "bench/nbc/impact_record.hpp"
#include "compute/workload.hpp"

namespace overlap::bench {

// One rank's view of one computation size.
struct ImpactSample {
  double target_comp_s = 0;
  bool calibrated = false;
  std::string reason;  // why not calibrated
  int comp_size = 0;
  double t_comp_ref_s = 0;          // before MPI_Init
  double t_comp_passive_mpi_s = 0;  // after, MPI idle
  // CPU accounting of the timed runs (docs/cpu-accounting.md): comp_alone before MPI_Init,
  // overlapped after it with MPI idle; and the runs' means, which the decomposition uses.
  PhaseAccounting cpu;
  double mean_ref_s = 0, mean_passive_mpi_s = 0;
};

// Before MPI_Init; touches no MPI. Calibrates each target on this rank and times it.
std::vector<ImpactSample> impact_before_mpi(const ImpactConfig& config, compute::Workload& gemm);
// After MPI_Init, collective: the same sizes again, MPI idle while they run.
void impact_with_mpi(MPI_Comm comm, const ImpactConfig& config, compute::Workload& gemm,
                     std::vector<ImpactSample>& samples);

// Collective; the points are complete on rank 0. A size is invalid if any rank could not
// calibrate it (the first such rank's reason is kept).
// `hosts`: each rank's host name.
std::vector<ImpactPoint> gather_impact(MPI_Comm comm, const std::vector<ImpactSample>& samples,
                                       const std::vector<std::string>& hosts);

const Benchmark<ImpactConfig, ImpactPoint>& impact_benchmark();

}  // namespace overlap::bench
