#include "intercept/runtime/wait_window.hpp"

#include <bit>
#include <chrono>
#include <cmath>

namespace overlap::intercept {

namespace {

struct Announcement {
  WaitWindow* window = nullptr;
  const MPI_Request* where = nullptr;
  MPI_Request handle = MPI_REQUEST_NULL;
};
thread_local Announcement announced;

}  // namespace

// Bin 8 o + e covers [2^o (1 + e/8), 2^o (1 + (e+1)/8)) ns: each octave in eight equal
// steps, read from the three bits after the leading one (so a bin's middle is within
// 1/16 of an octave's base, 6.25 %, of any value in it; bin_middle_ns uses the same
// steps).
int WaitWindow::bin_of(std::uint64_t ns) {
  if (ns < 2) return 0;
  const int octave = static_cast<int>(std::bit_width(ns)) - 1;  // 2^octave <= ns < 2^(octave + 1)
  if (octave >= kOctaves) return kBinsPerOctave * kOctaves - 1;
  // The three bits after the leading one: which eighth of the octave.
  const int eighth = octave >= 3 ? static_cast<int>((ns >> (octave - 3)) & 7)
                                 : static_cast<int>((ns << (3 - octave)) & 7);
  return octave * kBinsPerOctave + eighth;
}

double WaitWindow::bin_middle_ns(int bin) {
  const int octave = bin / kBinsPerOctave, eighth = bin % kBinsPerOctave;
  const double base = std::ldexp(1.0, octave);
  return base * (1.0 + (eighth + 0.5) / kBinsPerOctave);
}

void WaitWindow::add(std::uint64_t ns) {
  count_.fetch_add(1, std::memory_order_relaxed);
  sum_ns_.fetch_add(ns, std::memory_order_relaxed);
  for (auto v = min_ns_.load(std::memory_order_relaxed);
       ns < v && !min_ns_.compare_exchange_weak(v, ns, std::memory_order_relaxed);) {
  }
  for (auto v = max_ns_.load(std::memory_order_relaxed);
       ns > v && !max_ns_.compare_exchange_weak(v, ns, std::memory_order_relaxed);) {
  }
  bins_[static_cast<std::size_t>(bin_of(ns))].fetch_add(1, std::memory_order_relaxed);
}

WaitWindow::Summary WaitWindow::summary() const {
  Summary s;
  std::uint64_t in_bins = 0;
  for (const auto& b : bins_) in_bins += b.load(std::memory_order_relaxed);
  s.count = count_.load(std::memory_order_relaxed);
  if (s.count == 0 || in_bins == 0) return Summary{};
  const double min_ns = static_cast<double>(min_ns_.load(std::memory_order_relaxed));
  const double max_ns = static_cast<double>(max_ns_.load(std::memory_order_relaxed));
  s.mean_s = static_cast<double>(sum_ns_.load(std::memory_order_relaxed)) /
             static_cast<double>(s.count) * 1e-9;
  s.min_s = min_ns * 1e-9;
  s.max_s = max_ns * 1e-9;
  // The bin holding the middle sample (the lower middle of an even count), its middle
  // clamped to what was seen.
  const std::uint64_t middle = (in_bins - 1) / 2;
  std::uint64_t below = 0;
  for (std::size_t b = 0; b < bins_.size(); ++b) {
    below += bins_[b].load(std::memory_order_relaxed);
    if (below > middle) {
      const double mid = bin_middle_ns(static_cast<int>(b));
      s.median_s = std::fmin(std::fmax(mid, min_ns), max_ns) * 1e-9;
      break;
    }
  }
  return s;
}

std::uint64_t wait_window_now_ns() {
  return static_cast<std::uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                        std::chrono::steady_clock::now().time_since_epoch())
                                        .count());
}

void expect_wait_window(WaitWindow* window, const MPI_Request* request) {
  announced = {window, request, request != nullptr ? *request : MPI_REQUEST_NULL};
}

WaitWindow* take_wait_window(const MPI_Request* request) {
  const Announcement a = announced;
  announced = {};
  if (a.window == nullptr || request == nullptr || a.where != request || a.handle != *request)
    return nullptr;
  return a.window;
}

}  // namespace overlap::intercept
