#include "bench/impact_bench.hpp"

#include <algorithm>
#include <array>
#include <cstring>

#include "measure/calibration.hpp"
#include "measure/statistics.hpp"

namespace overlap::bench {
namespace {

constexpr int kWarmupRuns = 2;
constexpr int kReasonBytes = 240;

double median_run(compute::GemmWorkload& gemm, int runs) {
  for (int i = 0; i < kWarmupRuns; ++i) gemm.run();
  std::vector<double> times;
  for (int i = 0; i < runs; ++i) times.push_back(gemm.run().slowest_s);
  return measure::median(times);
}

}  // namespace

std::vector<ImpactSample> impact_before_mpi(const ImpactConfig& config,
                                            compute::GemmWorkload& gemm) {
  std::vector<ImpactSample> samples;
  long last = 64;
  for (double target : config.comp_times_s) {
    const measure::CalibrationConfig cc =
        gemm.calibration_config(config.tolerance, config.max_bytes, last);
    const auto cost = [&](long n) {
      gemm.resize(static_cast<int>(n));
      return median_run(gemm, 3);
    };
    const measure::CalibrationResult r = measure::calibrate(target, cost, cc);
    ImpactSample s;
    s.target_comp_s = target;
    s.calibrated = r.converged;
    s.reason = r.converged ? "" : "computation not calibrated: " + r.reason;
    if (r.converged) {
      last = r.size;
      s.comp_size = static_cast<int>(r.size);
      gemm.resize(s.comp_size);
      s.t_comp_ref_s = median_run(gemm, config.runs);
    }
    samples.push_back(s);
  }
  return samples;
}

void impact_with_mpi(MPI_Comm comm, const ImpactConfig& config, compute::GemmWorkload& gemm,
                     std::vector<ImpactSample>& samples) {
  MPI_Barrier(comm);  // all ranks initialised; from here on MPI stays idle
  for (ImpactSample& s : samples) {
    if (!s.calibrated) continue;
    gemm.resize(s.comp_size);
    s.t_comp_passive_mpi_s = median_run(gemm, config.runs);
  }
}

std::vector<ImpactPoint> gather_impact(MPI_Comm comm, const std::vector<ImpactSample>& samples) {
  int rank = 0, size = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  std::vector<ImpactPoint> points;
  for (const ImpactSample& s : samples) {
    std::array<double, 4> mine{s.calibrated ? 1.0 : 0.0, static_cast<double>(s.comp_size),
                               s.t_comp_ref_s, s.t_comp_passive_mpi_s};
    std::array<char, kReasonBytes> reason{};
    std::strncpy(reason.data(), s.reason.c_str(), kReasonBytes - 1);
    std::vector<double> all(rank == 0 ? 4 * static_cast<std::size_t>(size) : 0);
    std::vector<char> reasons(rank == 0 ? kReasonBytes * static_cast<std::size_t>(size) : 0);
    MPI_Gather(mine.data(), 4, MPI_DOUBLE, all.data(), 4, MPI_DOUBLE, 0, comm);
    MPI_Gather(reason.data(), kReasonBytes, MPI_CHAR, reasons.data(), kReasonBytes, MPI_CHAR, 0,
               comm);
    ImpactPoint p;
    p.target_comp_s = s.target_comp_s;
    if (rank == 0) {
      p.valid = true;
      std::vector<double> ratios;
      for (int r = 0; r < size; ++r) {
        const double* v = &all[static_cast<std::size_t>(4 * r)];
        if (v[0] == 0.0 || !(v[2] > 0)) {
          p.valid = false;
          p.invalid_reason = "rank " + std::to_string(r) + ": " +
                             std::string(&reasons[static_cast<std::size_t>(kReasonBytes * r)]);
          break;
        }
        p.ranks.push_back({r, static_cast<int>(v[1]), v[2], v[3], v[3] / v[2]});
        ratios.push_back(v[3] / v[2]);
      }
      if (p.valid) {
        p.r_mpi_impact_max = *std::max_element(ratios.begin(), ratios.end());
        p.r_mpi_impact_median = measure::median(ratios);
      } else {
        p.ranks.clear();
      }
    }
    points.push_back(p);
  }
  return points;
}

}  // namespace overlap::bench
