// Whether this process runs under overlap-run, and with which settings: asked of the
// preloaded liboverlap-intercept.so through its exported overlap_intercept_* functions
// (dlsym, as any program could; bench/ does not link the interception layer). Recorded in
// every result file's metadata, compared by --resume, and used by `p2p` to count the
// calls overlap-run really deferred.
#pragma once

#include <optional>
#include <string>

#include "base/record_schema.hpp"

namespace overlap::bench {

struct OverlapRunSettings {
  std::string progress;     // policy in effect: caller, shared or dedicated
  long min_size_bytes = 0;  // smallest message deferred (--min-size)
  std::string defer;        // call families deferred (--defer): "send,rsend,recv,sendrecv"
};
const Schema<OverlapRunSettings>& overlap_run_settings_schema();

// Before MPI_Init too: whether overlap-run's preload is in this process and not switched
// off (--off); its engine will then be running, with overlap-run's policy.
bool overlap_run_preloaded();

// After MPI_Init: the settings when calls are really intercepted; nothing when the
// preload is absent, set to --off, or its engine could not start.
std::optional<OverlapRunSettings> overlap_run_settings();

// Calls overlap-run has deferred in this process so far (0 without it). Cheap: one
// atomic load behind two calls, so it may bracket a timed round trip.
long overlap_run_deferred_calls();

}  // namespace overlap::bench
