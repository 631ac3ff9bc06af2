// Known answers for the measurement pipeline itself: stand-ins of known duration run
// through the real nbc sweep (bench::NbcSweep: calibration, the three phases from the sync
// barrier, the gather and measure::reduce_overlap), and the record must say what we know
// happened. Recomputing ratios from stored times cannot catch a swapped index in the
// reduction; this can.
//
//   - The collective: its message size is its duration in microseconds. With impl "mpi"
//     it progresses by itself (a thread completes it D after start), so the computation
//     hides it: r_overhead about 0, t_wait about 0. With impl "overlap" it progresses only
//     inside Wait (Wait does its D of work), so nothing hides it: r_overhead about 1,
//     t_wait about D.
//   - The computation: its size is its duration in microseconds (it sleeps).
//   - The peers' computation: time-based it sleeps the time asked, work-based a step is a
//     microsecond of sleep at a rate of 10^6 steps per second. OSU and IMB, with their own
//     protocols, must then read about 100 % for the collective that progresses by itself
//     and about 0 % for the one that waits (their formulas, sec. 6.3 of the paper, on
//     overall = pure or 2 pure, compute = pure), within 25 points.
//
// Tolerances. Both stand-ins sleep, so they do not compete for the two cores with other
// ranks or builds, but a loaded machine wakes a sleeper late, seen up to a few
// milliseconds. Times are medians over 9 iterations. Each time must be within 20 % of its
// known value plus 4 ms; a time whose known value is 0 within 4 ms; r_overhead within 0.25
// of 0 or 1 (0.25 of the 30 ms collective is 7.5 ms of slack). Durations of 30 and 60 ms
// keep those bounds clear of the noise and the whole test near 20 s.
#include <mpi.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <thread>

#include "bench/common/global_clock.hpp"
#include "bench/nbc/nbc_bench.hpp"
#include "clock/clock_source.hpp"
#include "compute/peer_kernel.hpp"
#include "compute/workload.hpp"

namespace {

using namespace overlap;
constexpr double kCommTarget = 0.030;
constexpr double kCompTarget = 0.060;

void sleep_s(double s) { std::this_thread::sleep_for(std::chrono::duration<double>(s)); }

class StandInCollective : public bench::Operation {
 public:
  explicit StandInCollective(bool self_progressing) : self_(self_progressing) {}
  ~StandInCollective() override {
    if (helper_.joinable()) helper_.join();
  }
  bool has_size() const override { return true; }
  int element_bytes() const override { return 1; }
  long max_elements(double) const override { return 10'000'000; }  // 10 s
  void resize(long elements) override { us_ = elements; }
  long elements() const override { return us_; }
  void start() override {
    done_ = false;
    if (!self_) return;
    helper_ = std::thread([this] {
      sleep_s(static_cast<double>(us_) * 1e-6);
      done_ = true;
    });
  }
  bool test() override { return done_; }
  void wait() override {
    if (!self_) {
      sleep_s(static_cast<double>(us_) * 1e-6);  // all the work, inside Wait
      done_ = true;
      return;
    }
    helper_.join();
  }

 private:
  bool self_;
  long us_ = 0;
  std::atomic<bool> done_{false};
  std::thread helper_;
};

class SleepWork : public compute::Workload {
 public:
  int threads() const override { return 1; }
  measure::CalibrationConfig calibration_config(double tolerance, double,
                                                long initial) const override {
    measure::CalibrationConfig c;
    c.tolerance = tolerance;
    c.min_size = 100;
    c.max_size = 10'000'000;
    c.initial_size = initial;
    return c;
  }
  double size_exponent() const override { return 1.0; }
  void resize(long us) override { us_ = us; }
  long size() const override { return us_; }
  double run() override {
    const auto t0 = std::chrono::steady_clock::now();
    sleep_s(static_cast<double>(us_) * 1e-6);
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  }
  double run_in_pieces(int pieces, const std::function<void()>& between, int& calls) override {
    if (pieces <= 0) return run();
    const auto t0 = std::chrono::steady_clock::now();
    for (calls = 0; calls < pieces; ++calls) {
      sleep_s(static_cast<double>(us_) * 1e-6 / pieces);
      between();
    }
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  }

 private:
  long us_ = 0;
};

// The peers' dummy computation (compute::PeerKernel) as sleeps of known length.
class SleepPeerKernel : public compute::PeerKernel {
 public:
  void run_for(double seconds, int pieces, const std::function<void()>& between) override {
    const int parts = pieces > 0 ? pieces : 1;
    for (int k = 0; k < parts; ++k) {
      sleep_s(seconds / parts);
      if (pieces > 0) between();
    }
  }
  double steps_per_second() override { return 1e6; }
  void run_steps(long steps) override { sleep_s(static_cast<double>(steps) * 1e-6); }
};

int failures = 0;

void expect_near(const char* what, double got, double known, double tolerance) {
  const bool ok = std::abs(got - known) <= tolerance;
  std::printf("%s %-28s %10.3f ms, known %8.3f ms +- %.3f ms\n", ok ? "ok  " : "FAIL", what,
              got * 1e3, known * 1e3, tolerance * 1e3);
  failures += ok ? 0 : 1;
}

void expect_pct(const char* what, const std::optional<double>& got, double known) {
  const bool ok = got && std::abs(*got - known) <= 25;
  std::printf("%s %-28s %10.1f %%, known %.0f %% +- 25\n", ok ? "ok  " : "FAIL", what,
              got ? *got : -1.0, known);
  failures += ok ? 0 : 1;
}

void expect_ratio(const char* what, double got, double known) {
  const bool ok = std::abs(got - known) <= 0.25;
  std::printf("%s %-28s %10.3f, known %.2f +- 0.25\n", ok ? "ok  " : "FAIL", what, got, known);
  failures += ok ? 0 : 1;
}

double time_tolerance(double known) { return known == 0 ? 0.004 : 0.2 * known + 0.004; }

void check(const bench::NbcPoint& p, bool self_progressing) {
  std::printf("--- collective progressing %s\n",
              self_progressing ? "by itself (a thread)" : "only inside Wait");
  if (!p.valid) {
    std::printf("FAIL point invalid: %s\n", p.invalid_reason.c_str());
    ++failures;
    return;
  }
  // The stand-ins' durations are their calibrated sizes, in microseconds.
  const double comm = static_cast<double>(*p.msg_bytes) * 1e-6;
  const double comp = static_cast<double>(*p.comp_size) * 1e-6;
  const double wait = self_progressing ? std::max(0.0, comm - comp) : comm;
  expect_near("t_comm_ref", p.t_comm_ref->median, comm, time_tolerance(comm));
  expect_near("t_comp_ref", p.t_comp_ref->median, comp, time_tolerance(comp));
  expect_near("t_call", p.t_call->median, 0.0, time_tolerance(0));
  expect_near("t_comp", p.t_comp->median, comp, time_tolerance(comp));
  expect_near("t_wait", p.t_wait->median, wait, time_tolerance(wait));
  expect_near("t_measured", p.t_measured->median, comp + wait, time_tolerance(comp + wait));
  expect_ratio("r_overhead", p.r_overhead->median, self_progressing ? 0.0 : 1.0);
  expect_ratio("r_comm", p.r_comm->median, wait / comm);
  // The peers' own protocols: each rank computes for its own pure time (about D).
  expect_pct("OSU (its own protocol)", p.osu_overlap_pct, self_progressing ? 100 : 0);
  expect_pct("IMB (its own protocol)", p.imb_overlap_pct, self_progressing ? 100 : 0);
  if (p.peers) {
    for (const bench::PeerRank& r : p.peers->ranks) {
      expect_near("peers: pure", r.pure_s, comm, time_tolerance(comm));
      expect_near("peers: OSU compute", r.osu_compute_s, r.pure_s, time_tolerance(r.pure_s));
      expect_near("peers: IMB compute", r.imb_compute_s, r.pure_s, time_tolerance(r.pure_s));
    }
  } else {
    std::printf("FAIL peers phase missing\n");
    ++failures;
  }
  std::printf("     diagnosis %s, %d kept, %d discarded\n",
              std::string(measure::to_string(p.diagnosis)).c_str(), p.iterations, p.discarded);
}

}  // namespace

int main(int argc, char** argv) {
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  {
    const auto source = clock::make_clock_source("monotonic");
    bench::GlobalClock clock(MPI_COMM_WORLD, *source, clock::EstimatorConfig{}, 0.2);
    bench::NbcConfig config;
    config.impls = {bench::Implementation::mpi, bench::Implementation::overlap};
    config.ops = {bench::Collective::bcast};
    config.comm_times_s = {kCommTarget};
    config.comp_times_s = {kCompTarget};
    config.iterations = 9;
    config.warmup = 1;
    config.calibration_runs = 3;
    config.peer_iterations = 5;
    // "mpi" stands for the collective that progresses by itself, "overlap" for the one
    // that progresses only inside Wait.
    const bench::OperationFactory stand_ins = [](bench::Implementation impl, bench::Collective) {
      return std::make_unique<StandInCollective>(impl == bench::Implementation::mpi);
    };
    SleepWork work;
    SleepPeerKernel peer_kernel;
    bench::NbcSweep sweep(clock, config, stand_ins, work, peer_kernel);
    for (const bench::NbcPoint& key : sweep.points()) {
      const bench::NbcPoint p = sweep.measure(key);
      if (rank == 0) check(p, key.impl == bench::Implementation::mpi);
    }
  }
  MPI_Bcast(&failures, 1, MPI_INT, 0, MPI_COMM_WORLD);
  if (rank == 0) std::printf(failures == 0 ? "PASS\n" : "FAIL: %d check(s)\n", failures);
  MPI_Finalize();
  return failures == 0 ? 0 : 1;
}
