#include "compute/peer_kernel.hpp"

#include <chrono>

namespace overlap::compute {
namespace {

using Clock = std::chrono::steady_clock;

// IMB measures its rate on about 50 Mflop (IMB_cpu_exploit: 50000000 / (2 SIZE^2) + 1
// repetitions); 2 x 16 x 16 flops per step makes that about 100 000 steps.
constexpr long kRateSteps = 100'000;

// Keeps the kernel's result alive without a memory barrier in the loop.
volatile double sink = 0;

}  // namespace

TinyKernel::TinyKernel() {
  for (int i = 0; i < kDim; ++i) {
    x_[i] = 0;
    y_[i] = 1.0 / (i + 1);
    for (int j = 0; j < kDim; ++j) a_[i][j] = 1e-3 * ((i + j) % 7);
  }
}

void TinyKernel::step() {
  for (int i = 0; i < kDim; ++i) {
    double s = x_[i];
    for (int j = 0; j < kDim; ++j) s += a_[i][j] * y_[j];
    x_[i] = s * 0.5;  // bounded: x stays finite however many steps run
  }
}

void TinyKernel::run_for(double seconds, int pieces, const std::function<void()>& between) {
  const int parts = pieces > 0 ? pieces : 1;
  const double part = seconds / parts;
  for (int k = 0; k < parts; ++k) {
    // As OSU: only the time inside the steps counts towards the target.
    double spent = 0;
    while (spent < part) {
      const auto t0 = Clock::now();
      step();
      spent += std::chrono::duration<double>(Clock::now() - t0).count();
    }
    if (pieces > 0 && between) between();
  }
  sink = x_[0];
}

double TinyKernel::steps_per_second() {
  if (rate_ > 0) return rate_;
  const auto t0 = Clock::now();
  run_steps(kRateSteps);
  const double t = std::chrono::duration<double>(Clock::now() - t0).count();
  rate_ = static_cast<double>(kRateSteps) / t;
  return rate_;
}

void TinyKernel::run_steps(long steps) {
  for (long s = 0; s < steps; ++s) step();
  sink = x_[0];
}

}  // namespace overlap::compute
