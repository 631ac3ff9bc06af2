// The dummy computation of OSU's and IMB-NBC's overlap tests, so that overlap-bench can run
// their protocols (bench/nbc/peer_protocol): one thread, the caller's, stepping a small
// kernel that stays in the L1 cache; no BLAS, no OpenMP. Both peers are single-threaded
// programs with such a kernel; they differ in how much of it they run:
//   OSU 7.4 (c/util/osu_util_mpi.c, dummy_compute -> do_compute_and_probe -> do_compute_cpu):
//     steps until the time spent in them reaches a target: time-based. With -t N (num_probes)
//     the target is split into N equal parts, each followed by one MPI_Test.
//   IMB-NBC (src_c/IMB_cpu_exploit.c): measures its rate once per process (a fixed amount of
//     work, the first time it is called), then runs target x rate repetitions: work-based.
// The step is ours (a 16 x 16 matrix-vector product), not either peer's, and of their size:
// a fraction of a microsecond, so a time-based run stops within that of its target.
#pragma once

#include <functional>

namespace overlap::compute {

class PeerKernel {
 public:
  virtual ~PeerKernel() = default;
  // Time-based (OSU): steps until `seconds` spent in them have passed on this thread's
  // clock, in `pieces` equal parts with `between()` after each (pieces <= 0: one part and
  // no call).
  virtual void run_for(double seconds, int pieces, const std::function<void()>& between) = 0;
  // Work-based (IMB): steps per second on the calling thread, measured the first time and
  // kept for the process's life, as IMB keeps its rate.
  virtual double steps_per_second() = 0;
  virtual void run_steps(long steps) = 0;
};

class TinyKernel final : public PeerKernel {
 public:
  TinyKernel();
  void run_for(double seconds, int pieces, const std::function<void()>& between) override;
  double steps_per_second() override;
  void run_steps(long steps) override;

 private:
  void step();
  static constexpr int kDim = 16;
  double a_[kDim][kDim];
  double x_[kDim];
  double y_[kDim];
  double rate_ = 0;
};

}  // namespace overlap::compute
