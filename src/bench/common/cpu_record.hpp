// CPU accounting as benchmarks record it (issue 13; docs/cpu-accounting.md): per rank and
// per measured phase (the communication alone, the computation alone, the two overlapped)
// where the CPU went, and per point the decomposition of the computation's slowdown.
// Every benchmark with a computation phase (nbc, progress, impact) embeds `CpuAccounting`
// and `CpuShares` in its point and fills them through `PhaseAccounting` (sampling),
// `kept_on_every_rank` and `gather_cpu` (over ranks), `drop_cpu` for an invalid point.
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

// What a point's `cpu` and `decomposition` sections are, the same words in every benchmark.
inline constexpr const char* kCpuSectionDoc =
    "where each rank's CPU went per phase, means over the kept iterations "
    "(docs/cpu-accounting.md); null with a reason where unmeasurable";
inline constexpr const char* kDecompositionSectionDoc =
    "the computation's slowdown as engine + transport + other threads + remainder, fractions "
    "of t_comp_ref; null with a reason when invalid or unmeasurable";

// One rank, one phase: means per kept iteration.
struct CpuPhase {
  double wall_s = 0;         // the window's length (steady clock between its two samples)
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
  std::string cpus;  // the affinity mask the kernel_* values sum over, e.g. "0-1"
  // Absent where the benchmark has no communication-alone phase (impact), or none was kept.
  std::optional<CpuPhase> comm_alone;
  CpuPhase comp_alone, overlapped;
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
  // That rank's means over the kept iterations, which the shares are computed from.
  double t_comp_ref_s = 0, t_comp_s = 0, t_overlap_s = 0;
  double lost = 0, engine = 0, other = 0;
  std::optional<double> transport, remainder;
  // 1 + transport: the slowdown left when the transfer costs the computing cores only the
  // kernel's time (the floor where no spare core exists; a lower bound where the CPUs are
  // not shared: the kernel's cache traffic is in the remainder). docs/cpu-accounting.md.
  std::optional<double> floor_slowdown;
  // The rank's CPUs are not its computation's alone (more CPUs than computation threads,
  // or shared with another rank under the same kernel): transport holds others' kernel time.
  bool kernel_cpus_shared = false;
  std::string text;  // "computation slowed 18 % (rank 1, ...): 15 % kernel time on ..."
};
const Schema<CpuShares>& cpu_shares_schema();

// Samples around a benchmark's phases, on the thread that runs the benchmark: mark() at
// the start, mark(phase) at the end of each phase. Every mark(phase) is one window of that
// phase, kept one by one (window i of each phase is iteration i when every iteration marks
// each phase once), so a total can leave out iterations discarded later.
class PhaseAccounting {
 public:
  enum Phase { comm_alone = 0, comp_alone = 1, overlapped = 2 };
  explicit PhaseAccounting(const std::vector<int>& computation_tids = {});
  void add_computation_threads(const std::vector<int>& tids);
  bool available() const { return sampler_.unavailable().empty(); }
  // Takes a sample; with a previous one, the usage in between goes to `phase`.
  void mark();
  void mark(Phase phase);
  // Windows marked for `p` since the last reset, a failed sample's empty.
  int marked(Phase p) const { return static_cast<int>(windows_[p].size()); }
  struct Total {
    measure::CpuUsage usage;
    int windows = 0;  // how many windows `usage` sums (those with both samples)
  };
  // The sum over the windows i with kept[i] (every window when `kept` is empty; nothing
  // for a phase never marked). Throws std::invalid_argument when the phase has windows
  // and `kept` is neither empty nor one flag per window.
  Total total(Phase p, const std::vector<bool>& kept = {}) const;
  // Leaves out the windows i of `p` without kept[i], for a phase whose iterations are
  // discarded apart from the others' (p2p). Throws like total().
  void keep_only(Phase p, const std::vector<bool>& kept);
  void reset();
  const measure::CpuSampler& sampler() const { return sampler_; }

 private:
  measure::CpuSampler sampler_;
  std::optional<measure::CpuSample> last_;
  std::vector<std::optional<measure::CpuUsage>> windows_[3];
};

// Which iterations every rank keeps: those in which no rank was late (reduce_overlap's
// rule), so each rank's accounting covers the iterations the point's times do. Collective.
std::vector<bool> kept_on_every_rank(MPI_Comm comm, const std::vector<bool>& late);

// An invalid point carries no numbers, not its CPU accounting either: both null, with `why`.
void drop_cpu(std::optional<CpuAccounting>& cpu, std::optional<CpuShares>& shares,
              std::map<std::string, std::string>& null_reasons, const std::string& why);

// Collective over `comm`: every rank's means over the kept iterations of `acc` (`kept`:
// one flag per iteration, the same on every rank; empty: every window) with its phase
// times over the same iterations, its affinity mask and whose kernel counts it, to rank
// 0, which fills `cpu`, `shares` and their null reasons (keys "cpu", "decomposition",
// "decomposition.transport", and "cpu.comm_alone" when no comm_alone window was marked).
// Other ranks leave them untouched.
void gather_cpu(MPI_Comm comm, const PhaseAccounting& acc, const std::vector<bool>& kept,
                const measure::PhaseTimes& mine, std::optional<CpuAccounting>& cpu,
                std::optional<CpuShares>& shares, std::map<std::string, std::string>& null_reasons);

}  // namespace overlap::bench
