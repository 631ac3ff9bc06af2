// How long a program computed between a nonblocking collective and its wait, per call site
// (overlap-run's report, `wait_window_s`; `overlap-bench advise --from` reads it as the
// program's computation): from the call's return to the start of the call that completed
// its request (MPI_Wait and its family, or the MPI_Test that found it done). That is the
// time the collective could overlap; a Test loop counts until the Test that succeeded.
//
// Any thread adds (the completing call's), any thread reads: counters and a histogram of
// atomics, no lock. The median comes from the histogram (8 bins per octave, so within
// about 6 % of the true one); count, mean, min and max are exact.
//
// The hand-over from a router to the request table: the router of a nonblocking
// collective says, after MPI accepted the call, which window the request it returned
// belongs to (expect_wait_window); the table takes it when it records that request
// (take_wait_window), on the same thread, in the same intercepted call.
#pragma once

#include <mpi.h>

#include <array>
#include <atomic>
#include <cstdint>

namespace overlap::intercept {

class WaitWindow {
 public:
  void add(std::uint64_t ns);

  struct Summary {
    std::uint64_t count = 0;
    double median_s = 0, mean_s = 0, min_s = 0, max_s = 0;  // 0 when count is 0
  };
  Summary summary() const;

  static constexpr int kBinsPerOctave = 8;
  static constexpr int kOctaves = 44;  // 1 ns .. 2^44 ns (about 4.9 hours); longer: last bin

 private:
  static int bin_of(std::uint64_t ns);
  static double bin_middle_ns(int bin);

  std::atomic<std::uint64_t> count_{0}, sum_ns_{0}, min_ns_{UINT64_MAX}, max_ns_{0};
  std::array<std::atomic<std::uint32_t>, kBinsPerOctave * kOctaves> bins_{};
};

// Monotonic nanoseconds (the windows' clock).
std::uint64_t wait_window_now_ns();

// The router of a nonblocking collective, after MPI accepted the call: `request` (the
// program's argument, now holding the handle) belongs to `window`.
void expect_wait_window(WaitWindow* window, const MPI_Request* request);
// The request table, recording `request`: its window, or null when the calling thread's
// call did not announce one for exactly this request. Always clears the announcement.
WaitWindow* take_wait_window(const MPI_Request* request);

}  // namespace overlap::intercept
