// CPU accounting under MPI (issue 13): a helper thread that busy-polls must show up as
// "other threads" of the phase it polled in, one that sleeps must not, and the records
// gathered over ranks must carry both. Asserts on accounting values against the helper's
// own CPU clock (CLOCK_THREAD_CPUTIME_ID), never on the timing of anything: the busy
// helper spins until it has used kBusyCpu of CPU, however long that takes on a loaded
// machine.
#include <mpi.h>
#include <pthread.h>

#include <atomic>
#include <chrono>
#include <ctime>
#include <string>
#include <thread>
#include <vector>

#include "bench/common/cpu_record.hpp"
#include "measure/cpu_sampler.hpp"
#include "verdict.hpp"

namespace {

using namespace overlap;
using ovx_test::expect;
constexpr double kBusyCpu = 0.060;  // seconds of CPU the busy helper burns

double thread_cpu_s() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

// One helper thread, named like nothing of ours, that polls or sleeps on request.
class Helper {
 public:
  Helper()
      : thread_([this] {
          pthread_setname_np(pthread_self(), "test-helper");
          while (!quit_.load()) {
            if (busy_.load()) {
              const double start = thread_cpu_s();
              while (thread_cpu_s() - start < kBusyCpu) {
              }
              used_ = thread_cpu_s() - start;
              busy_.store(false);
            } else {
              std::this_thread::sleep_for(std::chrono::milliseconds(1));
            }
          }
        }) {}
  ~Helper() {
    quit_.store(true);
    thread_.join();
  }
  // Polls until it used kBusyCpu of CPU; returns what it used.
  double poll() {
    busy_.store(true);
    while (busy_.load()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    return used_;
  }

 private:
  std::atomic<bool> busy_{false}, quit_{false};
  double used_ = 0;
  std::thread thread_;
};

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  {
    bench::PhaseAccounting acc;
    expect(acc.available(), "accounting unavailable: " + acc.sampler().unavailable());
    Helper helper;
    MPI_Barrier(MPI_COMM_WORLD);
    // comp_alone: the helper sleeps for as long as the busy phase will take.
    acc.mark();
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    acc.mark(bench::PhaseAccounting::comp_alone);
    // overlapped: the helper polls.
    const double used = helper.poll();
    acc.mark(bench::PhaseAccounting::overlapped);
    const double other_sleep = acc.total(bench::PhaseAccounting::comp_alone).usage.other_s;
    const double other_busy = acc.total(bench::PhaseAccounting::overlapped).usage.other_s;
    const double progress = acc.total(bench::PhaseAccounting::overlapped).usage.progress_s;
    // The busy helper's CPU is in "other" (minus nothing; plus whatever MPI's own threads
    // did, which is small next to 60 ms); the sleeping one's is not.
    expect(used >= kBusyCpu, "helper used " + std::to_string(used) + " s");
    expect(other_busy >= 0.95 * used, "busy helper: other threads " + std::to_string(other_busy) +
                                          " s < its own " + std::to_string(used) + " s");
    expect(other_busy <= used + 0.5 * kBusyCpu,
           "busy phase: other threads " + std::to_string(other_busy) + " s, helper " +
               std::to_string(used) + " s: something else was counted as other");
    expect(other_sleep < 0.25 * kBusyCpu,
           "sleeping helper counted as busy: other threads " + std::to_string(other_sleep) + " s");
    expect(progress == 0,
           "no progress thread exists, yet progress_s = " + std::to_string(progress));
    // The computation thread (this one) slept and waited: its CPU is small, not the
    // helper's.
    // Where /proc/stat is readable, every window had the kernel counters, so the phase
    // totals must have them too.
    if (acc.sampler().kernel_unavailable().empty()) {
      expect(acc.total(bench::PhaseAccounting::overlapped).usage.kernel.has_value() &&
                 acc.total(bench::PhaseAccounting::comp_alone).usage.kernel.has_value(),
             "kernel counters lost in the phase totals");
    }
    const double mine = acc.total(bench::PhaseAccounting::overlapped).usage.computation_s;
    expect(mine < 0.5 * used, "the helper's CPU went to the computation: " + std::to_string(mine));

    // A second iteration, the other way round, that is then discarded (as a late one
    // would be): the helper polls during comp_alone and sleeps during overlapped. Only
    // the kept windows may count.
    acc.mark();
    helper.poll();
    acc.mark(bench::PhaseAccounting::comp_alone);
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    acc.mark(bench::PhaseAccounting::overlapped);
    const std::vector<bool> kept{true, false};
    expect(acc.total(bench::PhaseAccounting::comp_alone).usage.other_s >= 0.95 * kBusyCpu,
           "the discarded iteration's busy comp_alone window missing from the all-windows total");
    const auto first = acc.total(bench::PhaseAccounting::comp_alone, kept);
    expect(first.windows == 1 && first.usage.other_s == other_sleep,
           "kept total of comp_alone is not its first window: other " +
               std::to_string(first.usage.other_s));
    // Sleep and poll both take at least what they ask for (100 ms of wall; kBusyCpu of
    // CPU, which cannot take less wall): the windows' lengths are in seconds.
    expect(first.usage.wall_s >= 0.100, "comp_alone wall " + std::to_string(first.usage.wall_s));

    // Gathered over the kept iteration: rank 0 sees both ranks, the same attribution, and
    // the decomposition's "other" share is the busy CPU over the stated t_comp_ref.
    std::optional<bench::CpuAccounting> cpu;
    std::optional<bench::CpuShares> shares;
    std::map<std::string, std::string> reasons;
    const measure::PhaseTimes times{0.100, 0.100, 0.100};
    bench::gather_cpu(MPI_COMM_WORLD, acc, kept, times, cpu, shares, reasons);
    if (rank == 0) {
      int size = 0;
      MPI_Comm_size(MPI_COMM_WORLD, &size);
      expect(cpu.has_value(), "cpu null: " + (reasons.count("cpu") ? reasons["cpu"] : ""));
      expect(shares.has_value(), "decomposition null");
      if (cpu) {
        expect(static_cast<int>(cpu->ranks.size()) == size, "one entry per rank");
        for (const bench::RankCpu& r : cpu->ranks) {
          const std::string who = "rank " + std::to_string(r.rank) + ": ";
          expect(r.overlapped.other_threads_s >= 0.95 * kBusyCpu,
                 who + "busy helper missing from other threads");
          expect(r.comp_alone.other_threads_s < 0.25 * kBusyCpu,
                 who + "sleeping helper in other threads (a discarded window counted?)");
          expect(r.comp_alone.wall_s >= 0.100 && r.overlapped.wall_s >= 0.95 * kBusyCpu,
                 who + "window lengths " + std::to_string(r.comp_alone.wall_s) + ", " +
                     std::to_string(r.overlapped.wall_s));
          expect(!r.cpus.empty(), who + "no affinity mask recorded");
        }
        expect(cpu->ranks[0].cpus == measure::format_cpu_list(acc.sampler().cpus()),
               "rank 0's mask " + cpu->ranks[0].cpus);
      }
      if (shares) {
        expect(shares->other >= 0.95 * kBusyCpu / 0.100 - 0.25 * kBusyCpu / 0.100,
               "decomposition's other share " + std::to_string(shares->other));
        expect(shares->text.find("other threads") != std::string::npos, shares->text);
        expect(shares->t_comp_ref_s == times.t_comp_ref && shares->t_overlap_s == times.overlap_s,
               "the decomposition's phase times are not the ones it was given");
        const bool says_shared = shares->text.find("(CPUs shared") != std::string::npos;
        expect(says_shared == (shares->kernel_cpus_shared && shares->transport.has_value()),
               "kernel_cpus_shared " + std::to_string(shares->kernel_cpus_shared) +
                   " but the text says: " + shares->text);
        // One computation thread here: a mask of more than one CPU is shared.
        if (cpu) {
          const std::string& mask = cpu->ranks[static_cast<std::size_t>(shares->rank)].cpus;
          const bool several = mask.find_first_of(",-") != std::string::npos;
          expect(!several || shares->kernel_cpus_shared,
                 "rank " + std::to_string(shares->rank) + " computes on one thread over CPUs " +
                     mask + ", yet kernel_cpus_shared is false");
        }
      }
    }
  }
  const int code = ovx_test::verdict("cpu-accounting");
  MPI_Finalize();
  return code;
}
