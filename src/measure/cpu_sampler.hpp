// Samples of the OS counters cpu_accounting works on, read from Linux's /proc:
// /proc/self/task/TID/{stat,schedstat,status} per thread (tick-split user/system time,
// nanosecond run time, involuntary context switches), /proc/stat for the CPUs of the
// process's affinity mask (system, irq, softirq) and getrusage(RUSAGE_SELF) for the
// process's system time. The parsers are pure and tested on recorded file contents.
#pragma once

#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "base/cpu_list.hpp"
#include "measure/cpu_accounting.hpp"

namespace overlap::measure {

// The name liboverlap gives its progress thread (progress/progress_thread.cpp).
inline constexpr std::string_view kProgressThreadName = "ovx-progress";

struct TaskStat {
  std::string name;
  double user_s = 0, system_s = 0;
};
// /proc/PID/task/TID/stat; nullopt when malformed. `tick_s` is 1 / sysconf(_SC_CLK_TCK).
std::optional<TaskStat> parse_task_stat(std::string_view text, double tick_s);
// /proc/.../schedstat: the first field, nanoseconds on the CPU, in seconds.
std::optional<double> parse_schedstat(std::string_view text);
// /proc/.../status: nonvoluntary_ctxt_switches.
std::optional<long> parse_involuntary_switches(std::string_view text);
// /proc/stat: system, irq and softirq summed over the "cpuN" lines of `cpus`; nullopt
// when one of them is missing.
std::optional<KernelCounters> parse_proc_stat(std::string_view text, const std::set<int>& cpus,
                                              double tick_s);

// A CPU set as Linux writes one (cpulist; base/cpu_list.hpp).
using ::overlap::format_cpu_list;

class CpuSampler {
 public:
  // Notes the calling thread as a computation thread, the process's affinity mask and
  // what this system lets us read (see unavailable()).
  CpuSampler();
  // Further computation threads (the computation's OpenMP workers).
  void add_computation_threads(const std::vector<int>& tids);
  // Why no sample can be taken at all ("" when it can).
  const std::string& unavailable() const { return unavailable_; }
  // Why the per-CPU kernel counters are missing from samples ("" when present).
  const std::string& kernel_unavailable() const { return kernel_unavailable_; }
  // Nothing when unavailable() is set.
  std::optional<CpuSample> sample() const;
  // The affinity mask, whose CPUs the kernel counters sum over.
  const std::set<int>& cpus() const { return cpus_; }
  int computation_threads() const { return static_cast<int>(computation_.size()); }
  // The running kernel's boot id (/proc/sys/kernel/random/boot_id): the same for every
  // process whose /proc/stat counts the same CPUs, network namespaces included; "" when
  // unreadable.
  static std::string kernel_id();

 private:
  std::set<int> computation_;
  std::set<int> cpus_;
  double tick_s_ = 0.01;
  bool schedstat_ = true;  // false: thread CPU from ticks only
  std::string unavailable_, kernel_unavailable_;
};

}  // namespace overlap::measure
