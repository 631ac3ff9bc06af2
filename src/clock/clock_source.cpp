#include "clock/clock_source.hpp"

#include <fmt/format.h>
#include <mpi.h>
#include <time.h>

#include "base/usage_error.hpp"

namespace overlap::clock {
namespace {

template <clockid_t Id>
class PosixClock final : public ClockSource {
 public:
  // `name` must be a string literal: it is kept as a view.
  explicit PosixClock(std::string_view name) : name_(name) {}
  double now() const noexcept override {
    timespec ts{};
    clock_gettime(Id, &ts);
    return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
  }
  std::string_view name() const noexcept override { return name_; }

 private:
  std::string_view name_;
};

class MpiWtimeClock final : public ClockSource {
 public:
  double now() const noexcept override { return MPI_Wtime(); }
  std::string_view name() const noexcept override { return "mpi_wtime"; }
};

}  // namespace

const std::vector<std::string>& clock_source_names() {
  static const std::vector<std::string> names{"monotonic", "monotonic_raw", "mpi_wtime"};
  return names;
}

std::unique_ptr<ClockSource> make_clock_source(std::string_view name) {
  if (name == "monotonic") return std::make_unique<PosixClock<CLOCK_MONOTONIC>>("monotonic");
  if (name == "monotonic_raw")
    return std::make_unique<PosixClock<CLOCK_MONOTONIC_RAW>>("monotonic_raw");
  if (name == "mpi_wtime") return std::make_unique<MpiWtimeClock>();
  throw UsageError(fmt::format("--clock: '{}' is not a clock source; allowed: {}", name,
                               fmt::join(clock_source_names(), ", ")));
}

}  // namespace overlap::clock
