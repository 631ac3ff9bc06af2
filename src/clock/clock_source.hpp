// Where local time comes from. Every timestamp Overlap takes goes through one of these,
// so the clock is a run parameter (and recorded in results) rather than a build choice.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace overlap::clock {

class ClockSource {
 public:
  virtual ~ClockSource() = default;
  // Seconds since an arbitrary, fixed origin. Must be cheap and monotonic.
  virtual double now() const noexcept = 0;
  virtual std::string_view name() const noexcept = 0;
};

// Names accepted by make_clock_source, default first.
const std::vector<std::string>& clock_source_names();

// "monotonic" (clock_gettime CLOCK_MONOTONIC, the default), "monotonic_raw"
// (CLOCK_MONOTONIC_RAW: not slewed by NTP), "mpi_wtime". Throws UsageError otherwise.
// mpi_wtime may only be read after MPI_Init.
std::unique_ptr<ClockSource> make_clock_source(std::string_view name);

}  // namespace overlap::clock
