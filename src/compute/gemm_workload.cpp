#include "compute/gemm_workload.hpp"

#include <cblas.h>
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <stdexcept>

// OpenBLAS would otherwise start its own thread pool inside every GEMM and fight our
// OpenMP threads for the cores. Weak, so any other BLAS links too.
extern "C" void openblas_set_num_threads(int) __attribute__((weak));

namespace overlap::compute {

struct GemmWorkload::ThreadMatrices {
  std::vector<double> a, b, c;
};

namespace {

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

GemmWorkload::GemmWorkload(int threads) : threads_(threads) {
  if (threads < 1) throw std::invalid_argument("GemmWorkload: threads must be >= 1");
  if (openblas_set_num_threads != nullptr) openblas_set_num_threads(1);
  matrices_.resize(static_cast<std::size_t>(threads));
}

GemmWorkload::~GemmWorkload() = default;

void GemmWorkload::resize(int n) {
  if (n < 1) throw std::invalid_argument("GemmWorkload: matrix order must be >= 1");
  if (n == n_) return;
  const auto elements = static_cast<std::size_t>(n) * static_cast<std::size_t>(n);
#pragma omp parallel num_threads(threads_)
  {
    auto& m = matrices_[static_cast<std::size_t>(omp_get_thread_num())];
    m = std::make_unique<ThreadMatrices>();
    // Values chosen so products stay well inside the normal range (no denormal slow-down).
    m->a.assign(elements, 0.5);
    m->b.assign(elements, 0.25);
    m->c.assign(elements, 0.0);
  }
  n_ = n;
}

GemmRun GemmWorkload::run() {
  if (n_ == 0) throw std::logic_error("GemmWorkload::run before resize");
  GemmRun result;
  result.thread_s.assign(static_cast<std::size_t>(threads_), 0.0);
#pragma omp parallel num_threads(threads_)
  {
    const auto id = static_cast<std::size_t>(omp_get_thread_num());
    auto& m = *matrices_[id];
    const auto start = std::chrono::steady_clock::now();
    cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n_, n_, n_, 1.0, m.a.data(), n_,
                m.b.data(), n_, 0.0, m.c.data(), n_);
    result.thread_s[id] = seconds_since(start);
  }
  result.slowest_s = *std::max_element(result.thread_s.begin(), result.thread_s.end());
  return result;
}

measure::CalibrationConfig GemmWorkload::calibration_config(double tolerance, double max_bytes,
                                                            long initial_order) const {
  constexpr long kMinOrder = 8;  // below this, fork/join and call overhead dominate
  const double per_thread = max_bytes / threads_;
  measure::CalibrationConfig c;
  c.tolerance = tolerance;
  c.min_size = kMinOrder;
  c.max_size =
      std::max(kMinOrder, static_cast<long>(std::sqrt(per_thread / (3.0 * sizeof(double)))));
  c.initial_size = initial_order;
  return c;
}

}  // namespace overlap::compute
