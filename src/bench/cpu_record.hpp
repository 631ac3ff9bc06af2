// CPU accounting as benchmarks record it (issue 13; docs/cpu-accounting.md): per rank and
// per measured phase (the collective alone, the computation alone, the two overlapped)
// where the CPU went, and per point the decomposition of the computation's slowdown.
// Any benchmark with a computation phase embeds `CpuAccounting` and `CpuShares` in its
// point and fills them through `PhaseAccounting` (sampling) and `gather_cpu` (over ranks).
#pragma once

#include <mpi.h>

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "base/record_schema.hpp"
#include "measure/cpu_accounting.hpp"
#include "measure/cpu_sampler.hpp"

namespace overlap::bench {

// One rank, one phase: means per iteration.
struct CpuPhase {
  double computation_s = 0;  // the computation threads (the benchmark's and OpenMP workers)
  double progress_s = 0;     // liboverlap's progress thread, user + system
  double progress_user_s = 0, progress_system_s = 0;
  bool progress_split_measured = true;
  double other_threads_s = 0;  // any other thread of the process (MPI's own threads)
  double process_system_s = 0;
  double involuntary_switches = 0;  // of the computation threads
  std::optional<double> kernel_system_s, kernel_irq_s, kernel_softirq_s;  // the rank's CPUs
  std::optional<double> kernel_outside_process_s;
};
const Schema<CpuPhase>& cpu_phase_schema();

struct RankCpu {
  int rank = 0;
  CpuPhase comm_alone, comp_alone, overlapped;
};
const Schema<RankCpu>& rank_cpu_schema();

struct CpuAccounting {
  std::vector<RankCpu> ranks;
};
const Schema<CpuAccounting>& cpu_accounting_schema();

// The decomposition of the slowdown of one rank (the one that lost the most), each a
// fraction of its t_comp_ref.
struct CpuShares {
  int rank = 0;
  double lost = 0, engine = 0, other = 0;
  std::optional<double> transport, remainder;
  // 1 + transport: the slowdown left when the transfer costs the computing cores only the
  // kernel's network processing (the floor where no spare core exists; a lower bound:
  // the kernel's cache traffic is in the remainder). docs/cpu-accounting.md.
  std::optional<double> floor_slowdown;
  std::string text;  // "computation slowed 18 %: 15 % kernel network processing ..."
};
const Schema<CpuShares>& cpu_shares_schema();

// Samples around a benchmark's phases, on the thread that runs the benchmark: mark() at
// each phase boundary, add(phase) after the phase's end mark.
class PhaseAccounting {
 public:
  enum Phase { comm_alone = 0, comp_alone = 1, overlapped = 2 };
  explicit PhaseAccounting(const std::vector<int>& computation_tids = {});
  void add_computation_threads(const std::vector<int>& tids);
  bool available() const { return sampler_.unavailable().empty(); }
  // Takes a sample; with a previous one, the usage in between goes to `phase`.
  void mark();
  void mark(Phase phase);
  // Totals per phase since the last reset, and how many windows each holds.
  const measure::CpuUsage& total(Phase p) const { return totals_[p]; }
  int windows(Phase p) const { return windows_[p]; }
  void reset();
  const measure::CpuSampler& sampler() const { return sampler_; }

 private:
  measure::CpuSampler sampler_;
  std::optional<measure::CpuSample> last_;
  measure::CpuUsage totals_[3];
  int windows_[3] = {0, 0, 0};
};

// Collective over `comm`: every rank's means per iteration of `acc` and its phase times,
// to rank 0, which fills `cpu`, `shares` and their null reasons (keys "cpu",
// "decomposition", "decomposition.transport"). Other ranks leave them untouched.
void gather_cpu(MPI_Comm comm, const PhaseAccounting& acc, const measure::PhaseTimes& mine,
                std::optional<CpuAccounting>& cpu, std::optional<CpuShares>& shares,
                std::map<std::string, std::string>& null_reasons);

}  // namespace overlap::bench
