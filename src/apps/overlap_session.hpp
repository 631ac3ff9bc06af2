// Starts liboverlap's progress engine for a benchmark run, after MPI_Init and before any
// computation thread exists (a dedicated progress core must be taken away from the main
// thread before OpenMP creates its workers), and calibrates its cost model (OVX_Calibrate,
// before any collective). All ranks agree on success.
#pragma once

#include <string>

#include "bench/common/implementation.hpp"
#include "bench/common/run_context.hpp"

namespace overlap::apps {

// What --progress auto resolves to on this rank (OVX_Progress_choose; before MPI_Init),
// for a program of `threads` computation threads, `leave_core` when --dedicate-cores asked
// for cores to be left free.
struct ResolvedProgress {
  bench::ProgressPolicy policy = bench::ProgressPolicy::shared;
  std::string reason;
};
ResolvedProgress resolve_auto_progress(int threads, bool leave_core);

// Returns 0, or 2 after rank 0 printed one line saying why liboverlap could not start (on
// any rank). `policy` is caller, shared or dedicated (auto resolved before); with
// OVERLAP_VERBOSE=1 rank 0 says which and `reason`.
int start_liboverlap(bench::ProgressPolicy policy, const std::string& reason);

// The policy in effect (after liboverlap's fallbacks) and `reason`, for the metadata.
bench::ProgressChoice liboverlap_progress(const std::string& reason);

// The cost model's parameters in use, for the result's metadata.
bench::CostModelFacts liboverlap_cost_model();

}  // namespace overlap::apps
