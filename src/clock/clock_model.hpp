// A rank's view of the global clock (rank 0's clock): a line from local to global time.
// Sign conventions, chosen so that a clock that is ahead and runs fast reads positive:
//   offset(local)  = local - global(local)      seconds this clock is ahead of global
//   drift_ppm()    = (dlocal/dglobal - 1) * 1e6 positive when this clock runs fast
// The same model serves interpolation (fitted from syncs before and after the timestamps)
// and extrapolation (fitted from past syncs only); which one it is depends on the samples.
#pragma once

#include "clock/linear_map.hpp"

namespace overlap::clock {

class ClockModel {
 public:
  ClockModel() = default;
  explicit ClockModel(LinearMap local_to_global) : map_(local_to_global) {}

  double to_global(double local) const { return map_(local); }
  double to_local(double global) const { return map_.inverse(global); }
  double offset(double local) const { return local - map_(local); }
  double drift_ppm() const { return (1.0 / map_.slope - 1.0) * 1e6; }

  // The same offset at `local`, drift ignored: what an offset-only sync would use.
  ClockModel without_drift(double local) const {
    return ClockModel(LinearMap::offset_only({local, map_(local)}));
  }

  const LinearMap& map() const { return map_; }

 private:
  LinearMap map_;
};

}  // namespace overlap::clock
