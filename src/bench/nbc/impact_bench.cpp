#include "bench/nbc/impact_bench.hpp"

#include <algorithm>
#include <array>
#include <cstring>

#include "base/duration.hpp"
#include "base/value_lists.hpp"
#include "compute/gemm_workload.hpp"
#include "measure/calibration.hpp"
#include "measure/statistics.hpp"

namespace overlap::bench {
namespace {

constexpr int kWarmupRuns = 2;
constexpr int kReasonBytes = 240;

struct Runs {
  double median = 0, mean = 0;
};

// With `acc`, each timed run is a window of `phase` (the warm-up runs are not).
Runs timed_runs(compute::Workload& gemm, int runs, PhaseAccounting* acc = nullptr,
                PhaseAccounting::Phase phase = PhaseAccounting::comp_alone) {
  for (int i = 0; i < kWarmupRuns; ++i) gemm.run();
  if (acc) acc->add_computation_threads(gemm.thread_ids());
  std::vector<double> times;
  for (int i = 0; i < runs; ++i) {
    if (acc) acc->mark();
    times.push_back(gemm.run());
    if (acc) acc->mark(phase);
  }
  return {measure::median(times), measure::mean(times)};
}

}  // namespace

std::vector<ImpactSample> impact_before_mpi(const ImpactConfig& config, compute::Workload& gemm) {
  std::vector<ImpactSample> samples;
  long last = 64;
  for (double target : config.comp_times_s) {
    const measure::CalibrationConfig cc =
        gemm.calibration_config(config.tolerance, config.max_bytes, last);
    const auto cost = [&](long n) {
      gemm.resize(n);
      return timed_runs(gemm, 3).median;
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
      const Runs ref = timed_runs(gemm, config.runs, &s.cpu, PhaseAccounting::comp_alone);
      s.t_comp_ref_s = ref.median;
      s.mean_ref_s = ref.mean;
    }
    samples.push_back(s);
  }
  return samples;
}

void impact_with_mpi(MPI_Comm comm, const ImpactConfig& config, compute::Workload& gemm,
                     std::vector<ImpactSample>& samples) {
  MPI_Barrier(comm);  // all ranks initialised; from here on MPI stays idle
  for (ImpactSample& s : samples) {
    if (!s.calibrated) continue;
    gemm.resize(s.comp_size);
    const Runs idle = timed_runs(gemm, config.runs, &s.cpu, PhaseAccounting::overlapped);
    s.t_comp_passive_mpi_s = idle.median;
    s.mean_passive_mpi_s = idle.mean;
  }
}

std::vector<ImpactPoint> gather_impact(MPI_Comm comm, const std::vector<ImpactSample>& samples,
                                       const std::vector<std::string>& hosts) {
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
        const std::string host = static_cast<std::size_t>(r) < hosts.size() ? hosts[r] : "";
        p.ranks.push_back({r, host, static_cast<long>(v[1]), v[2], v[3], v[3] / v[2]});
        ratios.push_back(v[3] / v[2]);
      }
      if (p.valid) {
        p.r_mpi_impact_max = *std::max_element(ratios.begin(), ratios.end());
        p.r_mpi_impact_median = measure::median(ratios);
      } else {
        p.ranks.clear();
      }
    }
    // MPI idle in the place of the overlapped phase: f = 1, the whole run is computation.
    gather_cpu(comm, s.cpu, {}, {s.mean_ref_s, s.mean_passive_mpi_s, s.mean_passive_mpi_s}, p.cpu,
               p.decomposition, p.null_reasons);
    if (rank == 0 && !p.valid)
      drop_cpu(p.cpu, p.decomposition, p.null_reasons, "the point is invalid");
    points.push_back(p);
  }
  return points;
}

namespace {

std::vector<OptionSpec> impact_options() {
  return {
      {"--comp-times", "8ms:128ms", "Computation times: 16ms,64ms or a log2 range 8ms:128ms",
       "comp_times_s"},
      {"--runs", "11", "Runs per size and phase (their median is used)", "runs"},
      {"--tolerance", "10%", "Calibration tolerance (0.1 or 10%)", "tolerance"},
      {"--max-buffer", "1GiB", "Largest matrices per rank (e.g. 512MiB)", "max_bytes"},
      {"--progress", "",
       "Also start liboverlap's progress engine (auto, caller, shared or dedicated), idle, to "
       "measure what its presence costs; default: not started",
       "progress"},
  };
}

ImpactConfig parse_impact(const OptionValues& v) {
  ImpactConfig c;
  c.comp_times_s = parse_duration_list(v.text("--comp-times"), "--comp-times");
  c.runs = parse_count(v.text("--runs"), "--runs", 100'000);
  c.tolerance = parse_fraction(v.text("--tolerance"), "--tolerance");
  c.max_bytes = parse_bytes(v.text("--max-buffer"), "--max-buffer");
  if (const auto p = v.typed("--progress")) {
    c.progress = kProgressPolicyNames.parse_option(*p, "--progress");
  }
  return c;
}

std::optional<ProgressPolicy> impact_liboverlap(const ImpactConfig& c) { return c.progress; }

std::string impact_label(const ImpactConfig& c) {
  return c.progress ? " + liboverlap " + std::string(to_string(*c.progress)) : "";
}

// The half before MPI_Init: the computation with no MPI in the process.
struct BeforeMpi {
  std::unique_ptr<compute::GemmWorkload> gemm;
  std::vector<ImpactSample> samples;
};

std::shared_ptr<void> impact_first_half(const ImpactConfig& c, const RunPlan& plan) {
  auto half = std::make_shared<BeforeMpi>();
  half->gemm = std::make_unique<compute::GemmWorkload>(plan.thread_pus);
  half->samples = impact_before_mpi(c, *half->gemm);
  return half;
}

class ImpactRun : public Sweep<ImpactPoint> {
 public:
  ImpactRun(const RunResources& r, const ImpactConfig& c)
      : r_(r), config_(c), half_(std::static_pointer_cast<BeforeMpi>(r.before_mpi)) {}
  std::vector<ImpactPoint> keys() const override { return {ImpactPoint{}}; }
  std::vector<ImpactPoint> measure(const ImpactPoint&) override {
    impact_with_mpi(r_.comm, config_, *half_->gemm, half_->samples);
    return gather_impact(r_.comm, half_->samples, r_.context->hosts);
  }

 private:
  RunResources r_;
  ImpactConfig config_;
  std::shared_ptr<BeforeMpi> half_;
};

std::unique_ptr<Sweep<ImpactPoint>> start_impact(const RunResources& r, const ImpactConfig& c) {
  return std::make_unique<ImpactRun>(r, c);
}

}  // namespace

const Benchmark<ImpactConfig, ImpactPoint>& impact_benchmark() {
  static const Benchmark<ImpactConfig, ImpactPoint> b{
      &kImpactResult,
      "How much an idle, initialised MPI slows computation (r_MPI_impact)",
      {.computes = true, .resumable = false, .global_clock = false},
      impact_options,
      parse_impact,
      impact_liboverlap,
      impact_first_half,
      start_impact,
      impact_label};
  return b;
}

}  // namespace overlap::bench
