#include "measure/cpu_accounting.hpp"

#include <fmt/format.h>
#include <algorithm>
#include <cmath>
#include <map>
#include <stdexcept>
#include <string>
#include <utility>

namespace overlap::measure {
namespace {

KernelCounters minus(const KernelCounters& a, const KernelCounters& b) {
  return {a.system_s - b.system_s, a.irq_s - b.irq_s, a.softirq_s - b.softirq_s};
}

// The progress thread's CPU in the window, split into user and system time.
void add_progress(CpuUsage& u, const ThreadCounters* before, const ThreadCounters& after) {
  const double cpu = after.cpu_s - (before ? before->cpu_s : 0.0);
  double user = after.user_tick_s - (before ? before->user_tick_s : 0.0);
  double system = after.system_tick_s - (before ? before->system_tick_s : 0.0);
  if (user + system <= 0) {  // no tick in the window: the thread's whole life
    user = after.user_tick_s;
    system = after.system_tick_s;
  }
  u.progress_s += cpu;
  if (user + system <= 0) {
    u.progress_user_s += cpu;
    u.progress_split_measured = false;
    return;
  }
  u.progress_user_s += cpu * user / (user + system);
  u.progress_system_s += cpu * system / (user + system);
}

}  // namespace

std::optional<double> CpuUsage::kernel_outside_process_s() const {
  if (!kernel) return std::nullopt;
  return kernel->system_s - process_system_s + kernel->irq_s + kernel->softirq_s;
}

CpuUsage& CpuUsage::operator+=(const CpuUsage& o) {
  computation_s += o.computation_s;
  progress_s += o.progress_s;
  progress_user_s += o.progress_user_s;
  progress_system_s += o.progress_system_s;
  progress_split_measured = progress_split_measured && o.progress_split_measured;
  other_s += o.other_s;
  computation_involuntary_switches += o.computation_involuntary_switches;
  if (kernel && o.kernel) {
    kernel->system_s += o.kernel->system_s;
    kernel->irq_s += o.kernel->irq_s;
    kernel->softirq_s += o.kernel->softirq_s;
  } else {
    kernel.reset();  // one window without counters: the sum is unknown
  }
  process_system_s += o.process_system_s;
  wall_s += o.wall_s;
  return *this;
}

CpuUsage CpuUsage::scaled(double f) const {
  CpuUsage u = *this;
  u.computation_s *= f;
  u.progress_s *= f;
  u.progress_user_s *= f;
  u.progress_system_s *= f;
  u.other_s *= f;
  u.computation_involuntary_switches =
      std::lround(static_cast<double>(computation_involuntary_switches) * f);
  if (u.kernel) *u.kernel = {kernel->system_s * f, kernel->irq_s * f, kernel->softirq_s * f};
  u.process_system_s *= f;
  u.wall_s *= f;
  return u;
}

CpuUsage usage_between(const CpuSample& before, const CpuSample& after) {
  std::map<int, const ThreadCounters*> earlier;
  for (const ThreadCounters& t : before.threads) earlier[t.tid] = &t;
  CpuUsage u;
  for (const ThreadCounters& t : after.threads) {
    const auto found = earlier.find(t.tid);
    const ThreadCounters* b = found == earlier.end() ? nullptr : found->second;
    const double cpu = t.cpu_s - (b ? b->cpu_s : 0.0);
    switch (t.role) {
      case ThreadRole::computation:
        u.computation_s += cpu;
        u.computation_involuntary_switches +=
            t.involuntary_switches - (b ? b->involuntary_switches : 0);
        break;
      case ThreadRole::progress:
        add_progress(u, b, t);
        break;
      case ThreadRole::other:
        u.other_s += cpu;
        break;
    }
  }
  if (before.kernel && after.kernel) u.kernel = minus(*after.kernel, *before.kernel);
  u.process_system_s = after.process_system_s - before.process_system_s;
  u.wall_s = after.wall_s - before.wall_s;
  return u;
}

PhaseTimes mean_phase_times(const std::vector<PhaseTimes>& its, const std::vector<bool>& kept) {
  if (!kept.empty() && kept.size() != its.size())
    throw std::invalid_argument("mean_phase_times: " + std::to_string(kept.size()) + " flags for " +
                                std::to_string(its.size()) + " iterations");
  PhaseTimes sum;
  int n = 0;
  for (std::size_t i = 0; i < its.size(); ++i) {
    if (!kept.empty() && !kept[i]) continue;
    sum.t_comp_ref += its[i].t_comp_ref;
    sum.t_comp += its[i].t_comp;
    sum.overlap_s += its[i].overlap_s;
    ++n;
  }
  if (n == 0) return {};
  return {sum.t_comp_ref / n, sum.t_comp / n, sum.overlap_s / n};
}

SlowdownShares decompose(const CpuUsage& alone, const CpuUsage& overlapped, const PhaseTimes& t) {
  if (!(alone.wall_s > 0) || !(overlapped.wall_s > 0))
    throw std::invalid_argument("decompose: both windows need a positive wall time");
  SlowdownShares s;
  s.lost = (t.t_comp - t.t_comp_ref) / t.t_comp_ref;
  // The part of what the transfer caused that fell while the computation ran.
  const double during = t.overlap_s > 0 ? std::min(1.0, t.t_comp / t.overlap_s) : 1.0;
  // The alone window's rate over the overlapped window's length: the background.
  const double stretch = overlapped.wall_s / alone.wall_s;
  const auto share = [&](double ov, double al) {
    return during * (ov - al * stretch) / t.t_comp_ref;
  };
  s.engine = share(overlapped.progress_user_s, alone.progress_user_s);
  s.other = share(overlapped.other_s, alone.other_s);
  const auto k_ov = overlapped.kernel_outside_process_s();
  const auto k_al = alone.kernel_outside_process_s();
  if (k_ov && k_al) {
    s.transport = share(*k_ov + overlapped.progress_system_s, *k_al + alone.progress_system_s);
    s.remainder = s.lost - s.engine - *s.transport - s.other;
  } else {
    s.why_unmeasured = "the per-CPU kernel counters (/proc/stat) could not be read";
  }
  return s;
}

bool kernel_cpus_shared(const std::vector<RankCpus>& ranks, std::size_t r) {
  const RankCpus& me = ranks.at(r);
  if (static_cast<int>(me.cpus.size()) > me.computation_threads) return true;
  for (std::size_t q = 0; q < ranks.size(); ++q) {
    if (q == r || ranks[q].kernel_id != me.kernel_id) continue;
    for (int c : ranks[q].cpus)
      if (me.cpus.contains(c)) return true;
  }
  return false;
}

std::string explain_shares(const SlowdownShares& s, int rank, bool cpus_shared) {
  const auto pct = [](double x) { return fmt::format("{:.0f} %", 100 * x); };
  std::vector<std::pair<double, std::string>> parts;
  // All kernel time on the rank's CPUs, whoever it was for: not only network processing.
  if (s.transport)
    parts.emplace_back(*s.transport, cpus_shared ? "kernel time on this rank's CPUs (CPUs shared: "
                                                   "includes other processes' kernel time)"
                                                 : "kernel time on this rank's CPUs");
  parts.emplace_back(s.engine, "progress thread");
  parts.emplace_back(s.other, "other threads");
  if (s.remainder) parts.emplace_back(*s.remainder, "unexplained (memory, caches, scheduling)");
  std::stable_sort(parts.begin(), parts.end(),
                   [](const auto& a, const auto& b) { return a.first > b.first; });
  std::string text = fmt::format(
      "computation slowed {} (rank {}, mean of the kept iterations): ", pct(s.lost), rank);
  for (std::size_t i = 0; i < parts.size(); ++i) {
    if (i > 0) text += ", ";
    text += pct(parts[i].first) + " " + parts[i].second;
  }
  if (!s.transport) text += " (kernel share not measured: " + s.why_unmeasured + ")";
  return text;
}

}  // namespace overlap::measure
