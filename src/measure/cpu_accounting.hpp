// Where the CPU of a rank's cores went during a measured phase, from two samples of OS
// counters, and the decomposition of a computation slowdown into engine, transport, other
// threads and an unexplained remainder. Pure arithmetic on samples (cpu_sampler reads
// them from /proc), so it is tested on recorded samples. Method: docs/cpu-accounting.md.
#pragma once

#include <optional>
#include <set>
#include <string>
#include <vector>

namespace overlap::measure {

// Who a thread of the process is: the computation (the thread that runs the benchmark
// and its OpenMP workers, by TID), liboverlap's progress thread (by its name), or anyone
// else (MPI's own progress or event threads, ...).
enum class ThreadRole { computation, progress, other };

// One thread at one instant.
struct ThreadCounters {
  int tid = 0;
  std::string name;
  ThreadRole role = ThreadRole::other;
  double cpu_s = 0;          // user + system, nanosecond counter (schedstat) when available
  double user_tick_s = 0;    // user time as the kernel's tick sampling splits it (stat)
  double system_tick_s = 0;  // system time, the same way
  long involuntary_switches = 0;
};

// Time the rank's CPUs (its affinity mask) spent in the kernel, summed over those CPUs,
// whoever it was for (/proc/stat, clock ticks).
struct KernelCounters {
  double system_s = 0, irq_s = 0, softirq_s = 0;
};

// One sample of everything. `kernel` is absent when /proc/stat could not be read.
struct CpuSample {
  std::vector<ThreadCounters> threads;
  std::optional<KernelCounters> kernel;
  double process_system_s = 0;  // getrusage(RUSAGE_SELF): this process's system time
  double wall_s = 0;            // steady clock when the sample was taken
};

// What happened between two samples (or the sum of several such windows).
struct CpuUsage {
  double computation_s = 0;  // CPU of the computation threads
  double progress_s = 0;     // CPU of liboverlap's progress thread
  double progress_user_s = 0, progress_system_s = 0;
  bool progress_split_measured = true;  // false: no tick landed in the thread (split guessed)
  double other_s = 0;                   // CPU of every other thread of the process
  long computation_involuntary_switches = 0;
  std::optional<KernelCounters> kernel;  // on the rank's CPUs, everyone's
  double process_system_s = 0;           // this process's own system time
  double wall_s = 0;  // how long the window(s) lasted: what a constant-rate background scales by

  // Kernel time on the rank's CPUs not spent on this process's behalf in its threads
  // (softirq and irq are counted whole: they run in no thread's context). Absent without
  // the per-CPU counters.
  std::optional<double> kernel_outside_process_s() const;
  CpuUsage& operator+=(const CpuUsage& o);
  CpuUsage scaled(double factor) const;  // every amount times factor (e.g. per iteration)
};

// The usage between two samples of one process. Threads are matched by TID; one that
// appears in `after` only started in between and counts whole; one that is gone is lost
// (its last window cannot be measured). The progress thread's user/system split is its
// tick counts' ratio in the window, or over its whole life when no tick landed in the
// window; with no tick at all its CPU is counted as user time and
// progress_split_measured is false.
CpuUsage usage_between(const CpuSample& before, const CpuSample& after);

// The slowdown of the computation, each part a fraction of t_comp_ref.
struct SlowdownShares {
  double lost = 0;                  // (t_comp - t_comp_ref) / t_comp_ref
  double engine = 0;                // liboverlap's progress thread, user time
  std::optional<double> transport;  // kernel on the rank's CPUs + progress thread's system time
  double other = 0;                 // other threads of the process
  std::optional<double> remainder;  // lost - the rest: memory, caches, scheduling
  std::string why_unmeasured;       // why transport/remainder are absent
};

// One rank's means per iteration: the overlapped phase (t1..t4 of Algorithm 1 plus the
// barrier before it) and the computation-alone phase (its barrier plus the computation).
// What the transfer caused is, per category, the overlapped window's CPU minus what the
// alone window's rate would have used over the overlapped window's length
// (ov - al * ov.wall_s / al.wall_s): the two windows differ in length, so a background at
// a constant rate (a spinning async thread, timer interrupts) cancels only as a rate. Of
// that, the part that fell while the computation ran is taken as t_comp / overlap_s
// (spread evenly over the overlap run, t4 - t1).
struct PhaseTimes {
  double t_comp_ref = 0;  // computation alone
  double t_comp = 0;      // computation while the collective is in flight (t3 - t2)
  double overlap_s = 0;   // t4 - t1
};
// The means over the iterations i with kept[i] (every one when `kept` is empty); zeros
// when none is kept. Throws std::invalid_argument when `kept` is neither empty nor one
// flag per iteration.
PhaseTimes mean_phase_times(const std::vector<PhaseTimes>& iterations,
                            const std::vector<bool>& kept = {});
// Throws std::invalid_argument when a window's wall_s is not positive (no rate).
SlowdownShares decompose(const CpuUsage& comp_alone, const CpuUsage& overlapped,
                         const PhaseTimes& times);

// Whose kernel time a rank's per-CPU counters hold, for the ranks of one point.
struct RankCpus {
  std::string kernel_id;  // the same for ranks under one kernel (boot id; host name else)
  std::set<int> cpus;     // the affinity mask
  int computation_threads = 1;
};
// True when rank `r`'s CPUs are not its computation's alone: the mask has more CPUs than
// the rank's computation threads, or another rank under the same kernel has one of them.
// Its kernel share then includes other processes' kernel time.
bool kernel_cpus_shared(const std::vector<RankCpus>& ranks, std::size_t r);

// A sentence for humans naming the biggest share first, e.g. "computation slowed 18 %
// (rank 1, mean of the kept iterations): 15 % kernel time on this rank's CPUs, 2 %
// progress thread, 1 % other threads, 0 % unexplained (memory, caches, scheduling)".
// With `cpus_shared`, the kernel share says that it includes other processes' time.
std::string explain_shares(const SlowdownShares& s, int rank, bool cpus_shared);

}  // namespace overlap::measure
