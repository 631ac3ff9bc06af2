#include "bench/common/cpu_record.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace overlap::bench {
namespace {

constexpr int kPhaseFields = 13;
constexpr int kShareFields = 8;
constexpr int kCpuFields = 1 + 3 * kPhaseFields + kShareFields;  // available flag first
constexpr double kNone = std::numeric_limits<double>::quiet_NaN();

double or_none(const std::optional<double>& v) { return v ? *v : kNone; }
std::optional<double> from(double v) { return std::isnan(v) ? std::nullopt : std::optional(v); }

void pack(const measure::CpuUsage& u, int windows, double* f) {
  const measure::CpuUsage m = u.scaled(windows > 0 ? 1.0 / windows : 0.0);
  const double involuntary =
      windows > 0 ? static_cast<double>(u.computation_involuntary_switches) / windows : 0.0;
  const auto k = m.kernel;
  const double values[kPhaseFields] = {m.wall_s,
                                       m.computation_s,
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
  p.wall_s = f[0];
  p.computation_s = f[1];
  p.progress_s = f[2];
  p.progress_user_s = f[3];
  p.progress_system_s = f[4];
  p.progress_split_measured = f[5] != 0;
  p.other_threads_s = f[6];
  p.process_system_s = f[7];
  p.involuntary_switches = f[8];
  p.kernel_system_s = from(f[9]);
  p.kernel_irq_s = from(f[10]);
  p.kernel_softirq_s = from(f[11]);
  p.kernel_outside_process_s = from(f[12]);
  return p;
}

// Every rank's `mine`, to rank 0 (empty elsewhere): lengths first, then the items.
template <class T>
std::vector<std::vector<T>> gather_varying(MPI_Comm comm, const std::vector<T>& mine,
                                           MPI_Datatype type) {
  int rank = 0, size = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  int len = static_cast<int>(mine.size());
  std::vector<int> lens(rank == 0 ? static_cast<std::size_t>(size) : 0);
  MPI_Gather(&len, 1, MPI_INT, lens.data(), 1, MPI_INT, 0, comm);
  std::vector<int> offsets(lens.size(), 0);
  for (std::size_t r = 1; r < lens.size(); ++r) offsets[r] = offsets[r - 1] + lens[r - 1];
  std::vector<T> all(lens.empty() ? 0 : static_cast<std::size_t>(offsets.back() + lens.back()));
  MPI_Gatherv(mine.data(), len, type, all.data(), lens.data(), offsets.data(), type, 0, comm);
  std::vector<std::vector<T>> out;
  for (std::size_t r = 0; r < lens.size(); ++r)
    out.emplace_back(all.begin() + offsets[r], all.begin() + offsets[r] + lens[r]);
  return out;
}

// Every rank's affinity mask, computation threads and kernel, to rank 0.
std::vector<measure::RankCpus> gather_rank_cpus(MPI_Comm comm, const measure::CpuSampler& s) {
  std::vector<int> ints{s.computation_threads()};
  ints.insert(ints.end(), s.cpus().begin(), s.cpus().end());
  std::string kernel = measure::CpuSampler::kernel_id();
  if (kernel.empty()) {  // no boot id: the host's name stands for its kernel
    std::string name(MPI_MAX_PROCESSOR_NAME, '\0');
    int len = 0;
    MPI_Get_processor_name(name.data(), &len);
    kernel = "host " + name.substr(0, static_cast<std::size_t>(len));
  }
  const auto all_ints = gather_varying(comm, ints, MPI_INT);
  const auto kernels =
      gather_varying(comm, std::vector<char>(kernel.begin(), kernel.end()), MPI_CHAR);
  std::vector<measure::RankCpus> out;
  for (std::size_t r = 0; r < all_ints.size(); ++r) {
    measure::RankCpus c;
    c.kernel_id.assign(kernels[r].begin(), kernels[r].end());
    c.computation_threads = all_ints[r].front();
    c.cpus.insert(all_ints[r].begin() + 1, all_ints[r].end());
    out.push_back(std::move(c));
  }
  return out;
}

}  // namespace

const Schema<CpuPhase>& cpu_phase_schema() {
  using P = CpuPhase;
  static const Schema<P> s =
      Schema<P>()
          .add("wall_s", &P::wall_s, Unit::seconds,
               "the phase's window, steady clock between its two samples: the rate the "
               "decomposition compares (docs/cpu-accounting.md)")
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
          .add("cpus", &R::cpus, Unit::none,
               "its affinity mask, the CPUs the kernel_* values sum over (e.g. \"0-1\")")
          .section("comm_alone", &R::comm_alone, cpu_phase_schema(),
                   "the communication alone, with the sync barrier before it; per kept "
                   "iteration; null where the benchmark has no such phase (impact)")
          .section("comp_alone", &R::comp_alone, cpu_phase_schema(),
                   "the computation alone, with the sync barrier before it; per kept "
                   "iteration (impact: before MPI_Init)")
          .section("overlapped", &R::overlapped, cpu_phase_schema(),
                   "the computation beside the communication (nbc, progress: the overlap run "
                   "t1..t4 with the sync barrier before it; impact: the computation with MPI "
                   "initialised and idle); per kept iteration");
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
          .add("t_comp_ref_s", &S::t_comp_ref_s, Unit::seconds,
               "that rank's computation alone, mean over the kept iterations")
          .add("t_comp_s", &S::t_comp_s, Unit::seconds,
               "its computation beside the collective (t3 - t2), the same way")
          .add("t_overlap_s", &S::t_overlap_s, Unit::seconds,
               "its overlap run (t4 - t1), the same way")
          .add("lost", &S::lost, Unit::ratio,
               "(t_comp - t_comp_ref) / t_comp_ref of that rank, its means over the kept "
               "iterations")
          .add("engine", &S::engine, Unit::ratio,
               "liboverlap's progress thread, user time, / t_comp_ref")
          .add("transport", &S::transport, Unit::ratio,
               "kernel time on the rank's CPUs outside the process (everyone's, not only "
               "network processing) + the progress thread's system time, / t_comp_ref")
          .add("other", &S::other, Unit::ratio, "other threads of the process, / t_comp_ref")
          .add("remainder", &S::remainder, Unit::ratio,
               "lost - engine - transport - other: memory bandwidth, caches, scheduling")
          .add("floor_slowdown", &S::floor_slowdown, Unit::ratio,
               "1 + transport: the computation's slowdown with only the kernel's time on its "
               "CPUs (a lower bound where kernel_cpus_shared is false; docs/cpu-accounting.md)")
          .add("kernel_cpus_shared", &S::kernel_cpus_shared, Unit::none,
               "true: the rank's CPUs are not its computation's alone (more CPUs than "
               "computation threads, or another rank under the same kernel has one): "
               "transport includes other processes' kernel time")
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
  std::optional<measure::CpuUsage> window;
  if (last_ && now) window = measure::usage_between(*last_, *now);
  windows_[phase].push_back(std::move(window));
  last_ = std::move(now);
}

PhaseAccounting::Total PhaseAccounting::total(Phase p, const std::vector<bool>& kept) const {
  const auto& w = windows_[p];
  if (!kept.empty() && !w.empty() && kept.size() != w.size())
    throw std::invalid_argument("PhaseAccounting::total: " + std::to_string(kept.size()) +
                                " flags for " + std::to_string(w.size()) + " windows");
  Total t;
  for (std::size_t i = 0; i < w.size(); ++i) {
    if (!w[i] || (!kept.empty() && !kept[i])) continue;
    // The first window starts the total (a default CpuUsage has no kernel counters, and
    // adding to it would make them unknown for good).
    if (t.windows++ == 0)
      t.usage = *w[i];
    else
      t.usage += *w[i];
  }
  return t;
}

void PhaseAccounting::keep_only(Phase p, const std::vector<bool>& kept) {
  auto& w = windows_[p];
  if (kept.size() != w.size())
    throw std::invalid_argument("PhaseAccounting::keep_only: " + std::to_string(kept.size()) +
                                " flags for " + std::to_string(w.size()) + " windows");
  std::vector<std::optional<measure::CpuUsage>> left;
  for (std::size_t i = 0; i < w.size(); ++i)
    if (kept[i]) left.push_back(std::move(w[i]));
  w = std::move(left);
}

void PhaseAccounting::reset() {
  for (auto& w : windows_) w.clear();
  last_.reset();
}

std::vector<bool> kept_on_every_rank(MPI_Comm comm, const std::vector<bool>& late) {
  std::vector<int> any(late.begin(), late.end());
  MPI_Allreduce(MPI_IN_PLACE, any.data(), static_cast<int>(any.size()), MPI_INT, MPI_MAX, comm);
  std::vector<bool> kept;
  for (int l : any) kept.push_back(l == 0);
  return kept;
}

void drop_cpu(std::optional<CpuAccounting>& cpu, std::optional<CpuShares>& shares,
              std::map<std::string, std::string>& null_reasons, const std::string& why) {
  cpu.reset();
  shares.reset();
  null_reasons.erase("cpu.comm_alone");
  null_reasons.erase("decomposition.transport");
  null_reasons["cpu"] = why;
  null_reasons["decomposition"] = why;
}

void gather_cpu(MPI_Comm comm, const PhaseAccounting& acc, const std::vector<bool>& kept,
                const measure::PhaseTimes& mine, std::optional<CpuAccounting>& cpu,
                std::optional<CpuShares>& shares,
                std::map<std::string, std::string>& null_reasons) {
  using P = PhaseAccounting;
  const P::Total totals[3] = {acc.total(P::comm_alone, kept), acc.total(P::comp_alone, kept),
                              acc.total(P::overlapped, kept)};
  std::vector<double> local(kCpuFields, kNone);
  // local[0]: 1 accounted, 0 counters unreadable, -1 no window kept (all runs discarded).
  const bool windows = totals[P::comp_alone].windows > 0 && totals[P::overlapped].windows > 0;
  const bool have = acc.available() && windows;
  local[0] = have ? 1.0 : (acc.available() ? -1.0 : 0.0);
  if (have) {
    for (int p = 0; p < 3; ++p)
      if (totals[p].windows > 0)  // no comm_alone window: its fields stay NaN, null
        pack(totals[p].usage, totals[p].windows,
             &local[static_cast<std::size_t>(1 + p * kPhaseFields)]);
    const P::Total& al = totals[P::comp_alone];
    const P::Total& ov = totals[P::overlapped];
    const measure::SlowdownShares s = measure::decompose(al.usage.scaled(1.0 / al.windows),
                                                         ov.usage.scaled(1.0 / ov.windows), mine);
    double* f = &local[1 + 3 * kPhaseFields];
    f[0] = s.lost;
    f[1] = s.engine;
    f[2] = or_none(s.transport);
    f[3] = s.other;
    f[4] = or_none(s.remainder);
    f[5] = mine.t_comp_ref;
    f[6] = mine.t_comp;
    f[7] = mine.overlap_s;
  }
  int rank = 0, size = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  std::vector<double> all(rank == 0 ? static_cast<std::size_t>(kCpuFields * size) : 0);
  MPI_Gather(local.data(), kCpuFields, MPI_DOUBLE, all.data(), kCpuFields, MPI_DOUBLE, 0, comm);
  const std::vector<measure::RankCpus> masks = gather_rank_cpus(comm, acc.sampler());
  if (rank != 0) return;

  CpuAccounting a;
  int worst = -1;
  for (int r = 0; r < size; ++r) {
    const double* f = &all[static_cast<std::size_t>(r * kCpuFields)];
    if (f[0] != 1.0) {
      std::string why = "rank " + std::to_string(r) + ": ";
      if (f[0] < 0) {
        why +=
            "no window of the computation alone or overlapped was kept (every run of one "
            "was discarded: a rank left its sync barrier late)";
      } else if (acc.available()) {
        why += "its per-thread CPU counters (/proc/self/task) could not be read";
      } else {
        why = acc.sampler().unavailable();
      }
      drop_cpu(cpu, shares, null_reasons, why);
      return;
    }
    std::optional<CpuPhase> comm_alone;
    if (!std::isnan(f[1])) {
      comm_alone = unpack(f + 1);
    } else {
      null_reasons["cpu.comm_alone"] =
          "no communication-alone window: the benchmark has none (impact) or discarded each "
          "one (a rank left its sync barrier late)";
    }
    a.ranks.push_back({r, measure::format_cpu_list(masks[static_cast<std::size_t>(r)].cpus),
                       comm_alone, unpack(f + 1 + kPhaseFields), unpack(f + 1 + 2 * kPhaseFields)});
    const double lost = f[1 + 3 * kPhaseFields];
    if (worst < 0 ||
        lost > all[static_cast<std::size_t>(worst * kCpuFields + 1 + 3 * kPhaseFields)])
      worst = r;
  }
  cpu = std::move(a);
  const double* f = &all[static_cast<std::size_t>(worst * kCpuFields + 1 + 3 * kPhaseFields)];
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
  const bool shared = measure::kernel_cpus_shared(masks, static_cast<std::size_t>(worst));
  shares = CpuShares{worst,       f[5],     f[6],    f[7],
                     s.lost,      s.engine, s.other, s.transport,
                     s.remainder, floor,    shared,  measure::explain_shares(s, worst, shared)};
}

}  // namespace overlap::bench
