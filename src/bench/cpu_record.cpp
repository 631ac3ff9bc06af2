#include "bench/cpu_record.hpp"

#include <cmath>
#include <limits>

namespace overlap::bench {
namespace {

constexpr int kPhaseFields = 12;
constexpr int kShareFields = 5;
constexpr int kFields = 1 + 3 * kPhaseFields + kShareFields;  // available flag first
constexpr double kNone = std::numeric_limits<double>::quiet_NaN();

double or_none(const std::optional<double>& v) { return v ? *v : kNone; }
std::optional<double> from(double v) { return std::isnan(v) ? std::nullopt : std::optional(v); }

void pack(const measure::CpuUsage& u, int windows, double* f) {
  const measure::CpuUsage m = u.scaled(windows > 0 ? 1.0 / windows : 0.0);
  const double involuntary =
      windows > 0 ? static_cast<double>(u.computation_involuntary_switches) / windows : 0.0;
  const auto k = m.kernel;
  const double values[kPhaseFields] = {m.computation_s,
                                       m.progress_s,
                                       m.progress_user_s,
                                       m.progress_system_s,
                                       m.progress_split_measured ? 1.0 : 0.0,
                                       m.other_s,
                                       m.process_system_s,
                                       involuntary,
                                       k ? k->system_s : kNone,
                                       k ? k->irq_s : kNone,
                                       k ? k->softirq_s : kNone,
                                       or_none(m.kernel_outside_process_s())};
  std::copy(values, values + kPhaseFields, f);
}

CpuPhase unpack(const double* f) {
  CpuPhase p;
  p.computation_s = f[0];
  p.progress_s = f[1];
  p.progress_user_s = f[2];
  p.progress_system_s = f[3];
  p.progress_split_measured = f[4] != 0;
  p.other_threads_s = f[5];
  p.process_system_s = f[6];
  p.involuntary_switches = f[7];
  p.kernel_system_s = from(f[8]);
  p.kernel_irq_s = from(f[9]);
  p.kernel_softirq_s = from(f[10]);
  p.kernel_outside_process_s = from(f[11]);
  return p;
}

}  // namespace

const Schema<CpuPhase>& cpu_phase_schema() {
  using P = CpuPhase;
  static const Schema<P> s =
      Schema<P>()
          .add("computation_s", &P::computation_s, Unit::seconds,
               "CPU of the computation threads (the benchmark's thread and its OpenMP workers)")
          .add("progress_s", &P::progress_s, Unit::seconds,
               "CPU of liboverlap's progress thread (ovx-progress), user + system")
          .add("progress_user_s", &P::progress_user_s, Unit::seconds,
               "its user time (the split is the kernel's tick sampling, docs/cpu-accounting.md)")
          .add("progress_system_s", &P::progress_system_s, Unit::seconds, "its system time")
          .add("progress_split_measured", &P::progress_split_measured, Unit::none,
               "false: no clock tick ever landed in the thread, its CPU is counted as user time")
          .add("other_threads_s", &P::other_threads_s, Unit::seconds,
               "CPU of every other thread of the process (MPI's own progress/async threads)")
          .add("process_system_s", &P::process_system_s, Unit::seconds,
               "the process's system time, all threads (getrusage)")
          .add("involuntary_switches", &P::involuntary_switches, Unit::count,
               "involuntary context switches of the computation threads")
          .add("kernel_system_s", &P::kernel_system_s, Unit::seconds,
               "system time of the rank's CPUs (affinity mask), everyone's (/proc/stat); null "
               "when unreadable")
          .add("kernel_irq_s", &P::kernel_irq_s, Unit::seconds, "irq time of the rank's CPUs")
          .add("kernel_softirq_s", &P::kernel_softirq_s, Unit::seconds,
               "softirq time of the rank's CPUs (network receive processing lands here)")
          .add("kernel_outside_process_s", &P::kernel_outside_process_s, Unit::seconds,
               "kernel_system_s - process_system_s + kernel_irq_s + kernel_softirq_s");
  return s;
}

const Schema<RankCpu>& rank_cpu_schema() {
  using R = RankCpu;
  static const Schema<R> s =
      Schema<R>()
          .add("rank", &R::rank, Unit::none, "rank in the benchmark's communicator")
          .section("comm_alone", &R::comm_alone, cpu_phase_schema(),
                   "the collective alone, with the sync barrier before it; per iteration")
          .section("comp_alone", &R::comp_alone, cpu_phase_schema(),
                   "the computation alone, with the sync barrier before it; per iteration")
          .section("overlapped", &R::overlapped, cpu_phase_schema(),
                   "the overlap run (t1..t4), with the sync barrier before it; per iteration");
  return s;
}

const Schema<CpuAccounting>& cpu_accounting_schema() {
  static const Schema<CpuAccounting> s = Schema<CpuAccounting>().section(
      "ranks", &CpuAccounting::ranks, rank_cpu_schema(), "one entry per rank");
  return s;
}

const Schema<CpuShares>& cpu_shares_schema() {
  using S = CpuShares;
  static const Schema<S> s =
      Schema<S>()
          .add("rank", &S::rank, Unit::none, "the rank decomposed: the one that lost the most")
          .add("lost", &S::lost, Unit::ratio,
               "(t_comp - t_comp_ref) / t_comp_ref of that rank, its own means")
          .add("engine", &S::engine, Unit::ratio,
               "liboverlap's progress thread, user time, / t_comp_ref")
          .add("transport", &S::transport, Unit::ratio,
               "kernel time on the rank's CPUs outside the process + the progress thread's "
               "system time, / t_comp_ref")
          .add("other", &S::other, Unit::ratio, "other threads of the process, / t_comp_ref")
          .add("remainder", &S::remainder, Unit::ratio,
               "lost - engine - transport - other: memory bandwidth, caches, scheduling")
          .add("floor_slowdown", &S::floor_slowdown, Unit::ratio,
               "1 + transport: the computation's slowdown with only the kernel's network "
               "processing on its cores (a lower bound; docs/cpu-accounting.md)")
          .add("text", &S::text, Unit::none, "one sentence naming the biggest share first");
  return s;
}

PhaseAccounting::PhaseAccounting(const std::vector<int>& tids) {
  sampler_.add_computation_threads(tids);
}

void PhaseAccounting::add_computation_threads(const std::vector<int>& tids) {
  sampler_.add_computation_threads(tids);
}

void PhaseAccounting::mark() { last_ = sampler_.sample(); }

void PhaseAccounting::mark(Phase phase) {
  std::optional<measure::CpuSample> now = sampler_.sample();
  if (last_ && now) {
    const measure::CpuUsage u = measure::usage_between(*last_, *now);
    // The first window starts the total (a default CpuUsage has no kernel counters, and
    // adding to it would make them unknown for good).
    if (windows_[phase]++ == 0)
      totals_[phase] = u;
    else
      totals_[phase] += u;
  }
  last_ = std::move(now);
}

void PhaseAccounting::reset() {
  for (int p = 0; p < 3; ++p) {
    totals_[p] = {};
    windows_[p] = 0;
  }
  last_.reset();
}

void gather_cpu(MPI_Comm comm, const PhaseAccounting& acc, const measure::PhaseTimes& mine,
                std::optional<CpuAccounting>& cpu, std::optional<CpuShares>& shares,
                std::map<std::string, std::string>& null_reasons) {
  using P = PhaseAccounting;
  std::vector<double> local(kFields, kNone);
  const bool have =
      acc.available() && acc.windows(P::comp_alone) > 0 && acc.windows(P::overlapped) > 0;
  local[0] = have ? 1.0 : 0.0;
  if (have) {
    for (int p = 0; p < 3; ++p)
      pack(acc.total(static_cast<P::Phase>(p)), acc.windows(static_cast<P::Phase>(p)),
           &local[static_cast<std::size_t>(1 + p * kPhaseFields)]);
    const int n_alone = acc.windows(P::comp_alone), n_ov = acc.windows(P::overlapped);
    const measure::SlowdownShares s =
        measure::decompose(acc.total(P::comp_alone).scaled(1.0 / n_alone),
                           acc.total(P::overlapped).scaled(1.0 / n_ov), mine);
    double* f = &local[1 + 3 * kPhaseFields];
    f[0] = s.lost;
    f[1] = s.engine;
    f[2] = or_none(s.transport);
    f[3] = s.other;
    f[4] = or_none(s.remainder);
  }
  int rank = 0, size = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  std::vector<double> all(rank == 0 ? static_cast<std::size_t>(kFields * size) : 0);
  MPI_Gather(local.data(), kFields, MPI_DOUBLE, all.data(), kFields, MPI_DOUBLE, 0, comm);
  if (rank != 0) return;

  CpuAccounting a;
  int worst = -1;
  for (int r = 0; r < size; ++r) {
    const double* f = &all[static_cast<std::size_t>(r * kFields)];
    if (f[0] == 0) {
      cpu.reset();
      shares.reset();
      const std::string why =
          acc.available() ? "rank " + std::to_string(r) +
                                ": its per-thread CPU counters (/proc/self/task) could not be read"
                          : acc.sampler().unavailable();
      null_reasons["cpu"] = why;
      null_reasons["decomposition"] = why;
      return;
    }
    a.ranks.push_back(
        {r, unpack(f + 1), unpack(f + 1 + kPhaseFields), unpack(f + 1 + 2 * kPhaseFields)});
    const double lost = f[1 + 3 * kPhaseFields];
    if (worst < 0 || lost > all[static_cast<std::size_t>(worst * kFields + 1 + 3 * kPhaseFields)])
      worst = r;
  }
  cpu = std::move(a);
  const double* f = &all[static_cast<std::size_t>(worst * kFields + 1 + 3 * kPhaseFields)];
  measure::SlowdownShares s;
  s.lost = f[0];
  s.engine = f[1];
  s.transport = from(f[2]);
  s.other = f[3];
  s.remainder = from(f[4]);
  if (!s.transport) {
    s.why_unmeasured = "rank " + std::to_string(worst) +
                       ": the per-CPU kernel counters (/proc/stat) could not be read";
    null_reasons["decomposition.transport"] = s.why_unmeasured;
  }
  std::optional<double> floor;
  if (s.transport) floor = 1.0 + *s.transport;
  shares = CpuShares{worst,       s.lost,      s.engine, s.other,
                     s.transport, s.remainder, floor,    measure::explain_shares(s)};
}

}  // namespace overlap::bench
