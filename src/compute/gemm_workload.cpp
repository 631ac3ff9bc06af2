#include "compute/gemm_workload.hpp"

#include <cblas.h>
#include <omp.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <stdexcept>

#include "base/duration.hpp"
#include "compute/thread_binding.hpp"

// OpenBLAS would otherwise start its own thread pool inside every GEMM and fight our
// OpenMP threads for the cores. Weak, so any other BLAS links too.
extern "C" void openblas_set_num_threads(int) __attribute__((weak));

namespace overlap::compute {

struct GemmWorkload::ThreadMatrices {
  std::vector<double> a, b, c;
};

namespace {

// C[rows lo..hi) = A[rows lo..hi) x B.
void gemm_rows(std::vector<double>& a, std::vector<double>& b, std::vector<double>& c, int n,
               int lo, int hi) {
  if (hi <= lo) return;
  const auto off = static_cast<std::size_t>(lo) * static_cast<std::size_t>(n);
  cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, hi - lo, n, n, 1.0, a.data() + off, n,
              b.data(), n, 0.0, c.data() + off, n);
}

}  // namespace

GemmWorkload::GemmWorkload(std::vector<std::vector<int>> thread_pus) : pus_(std::move(thread_pus)) {
  if (pus_.empty()) throw std::invalid_argument("GemmWorkload: threads must be >= 1");
  if (openblas_set_num_threads != nullptr) openblas_set_num_threads(1);
  matrices_.resize(pus_.size());
  thread_s_.assign(pus_.size(), 0.0);
  tids_.assign(pus_.size(), 0);
}

GemmWorkload::GemmWorkload(int threads)
    : GemmWorkload(
          std::vector<std::vector<int>>(threads > 0 ? static_cast<std::size_t>(threads) : 0)) {}

GemmWorkload::~GemmWorkload() = default;

void GemmWorkload::resize(long n) {
  if (n < 1) throw std::invalid_argument("GemmWorkload: matrix order must be >= 1");
  if (n == n_) return;
  const auto elements = static_cast<std::size_t>(n) * static_cast<std::size_t>(n);
#pragma omp parallel num_threads(threads())
  {
    const auto id = static_cast<std::size_t>(omp_get_thread_num());
    ThreadBinding bound(pus_[id]);  // first touch on the core that will compute
    tids_[id] = static_cast<int>(::gettid());
    auto& m = matrices_[id];
    m = std::make_unique<ThreadMatrices>();
    // Values chosen so products stay well inside the normal range (no denormal slow-down).
    m->a.assign(elements, 0.5);
    m->b.assign(elements, 0.25);
    m->c.assign(elements, 0.0);
  }
  n_ = static_cast<int>(n);
}

double GemmWorkload::run() {
  int calls = 0;
  return run_in_pieces(0, {}, calls);
}

double GemmWorkload::run_in_pieces(int pieces, const std::function<void()>& between, int& calls) {
  if (n_ == 0) throw std::logic_error("GemmWorkload::run before resize");
  const int parts = std::clamp(pieces, 1, n_);
  int made = 0;
#pragma omp parallel num_threads(threads())
  {
    const auto id = static_cast<std::size_t>(omp_get_thread_num());
    // Bound while computing, restored after: workers that existed before a dedicated
    // progress thread took its core are kept off it all the same.
    ThreadBinding bound(pus_[id]);
    tids_[id] = static_cast<int>(::gettid());
    auto& m = *matrices_[id];
    const auto start = std::chrono::steady_clock::now();
    for (int k = 0; k < parts; ++k) {
      gemm_rows(m.a, m.b, m.c, n_, k * n_ / parts, (k + 1) * n_ / parts);
      if (id == 0 && pieces > 0 && between) {
        between();
        ++made;
      }
    }
    thread_s_[id] = seconds_since(start);
  }
  calls = made;
  return *std::max_element(thread_s_.begin(), thread_s_.end());
}

measure::CalibrationConfig GemmWorkload::calibration_config(double tolerance, double max_bytes,
                                                            long initial_order) const {
  constexpr long kMinOrder = 8;  // below this, fork/join and call overhead dominate
  const double per_thread = max_bytes / threads();
  measure::CalibrationConfig c;
  c.tolerance = tolerance;
  c.min_size = kMinOrder;
  c.max_size =
      std::max(kMinOrder, static_cast<long>(std::sqrt(per_thread / (3.0 * sizeof(double)))));
  c.initial_size = initial_order;
  return c;
}

}  // namespace overlap::compute
