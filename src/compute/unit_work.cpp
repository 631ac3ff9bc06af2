#include "compute/unit_work.hpp"

#include <cblas.h>
#include <omp.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <stdexcept>

#include "base/duration.hpp"
#include "compute/thread_binding.hpp"

extern "C" void openblas_set_num_threads(int) __attribute__((weak));

namespace overlap::compute {
namespace {

constexpr int kOrder = 48;  // one unit: tens of microseconds, fine enough to stop on time

using Clock = std::chrono::steady_clock;

}  // namespace

struct UnitWork::Matrices {
  std::vector<double> a = std::vector<double>(kOrder * kOrder, 0.5);
  std::vector<double> b = std::vector<double>(kOrder * kOrder, 0.25);
  std::vector<double> c = std::vector<double>(kOrder * kOrder, 0.0);
  void unit() {
    cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, kOrder, kOrder, kOrder, 1.0, a.data(),
                kOrder, b.data(), kOrder, 0.0, c.data(), kOrder);
  }
};

UnitWork::UnitWork(std::vector<std::vector<int>> thread_pus) : pus_(std::move(thread_pus)) {
  if (pus_.empty()) throw std::invalid_argument("UnitWork: threads must be >= 1");
  if (openblas_set_num_threads != nullptr) openblas_set_num_threads(1);
  thread_s_.assign(pus_.size(), 0.0);
  tids_.assign(pus_.size(), 0);
  matrices_.resize(pus_.size());
#pragma omp parallel num_threads(threads())
  {
    const auto id = static_cast<std::size_t>(omp_get_thread_num());
    ThreadBinding bound(pus_[id]);
    tids_[id] = static_cast<int>(::gettid());
    matrices_[id] = std::make_unique<Matrices>();
  }
}

UnitWork::~UnitWork() = default;

measure::CalibrationConfig UnitWork::calibration_config(double tolerance, double,
                                                        long initial_units) const {
  measure::CalibrationConfig c;
  c.tolerance = tolerance;
  c.min_size = 1;
  c.max_size = 1L << 30;
  c.initial_size = initial_units;
  return c;
}

void UnitWork::resize(long units) {
  if (units < 1) throw std::invalid_argument("UnitWork: units must be >= 1");
  units_ = units;
}

double UnitWork::run() {
  int calls = 0;
  return run_in_pieces(0, {}, calls);
}

double UnitWork::run_in_pieces(int pieces, const std::function<void()>& between, int& calls) {
  if (units_ == 0) throw std::logic_error("UnitWork::run before resize");
  const long parts = std::clamp<long>(pieces, 1, units_);
  int made = 0;
#pragma omp parallel num_threads(threads())
  {
    const auto id = static_cast<std::size_t>(omp_get_thread_num());
    ThreadBinding bound(pus_[id]);
    tids_[id] = static_cast<int>(::gettid());
    Matrices& m = *matrices_[id];
    const auto start = Clock::now();
    for (long k = 0; k < parts; ++k) {
      for (long u = k * units_ / parts; u < (k + 1) * units_ / parts; ++u) m.unit();
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

long UnitWork::run_for(double seconds) {
  long total = 0;
#pragma omp parallel num_threads(threads()) reduction(+ : total)
  {
    const auto id = static_cast<std::size_t>(omp_get_thread_num());
    ThreadBinding bound(pus_[id]);
    tids_[id] = static_cast<int>(::gettid());
    Matrices& m = *matrices_[id];
    const auto start = Clock::now();
    while (seconds_since(start) < seconds) {
      m.unit();
      ++total;
    }
  }
  return total;
}

}  // namespace overlap::compute
