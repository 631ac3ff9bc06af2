// Starts liboverlap's progress engine for a benchmark run, after MPI_Init and before any
// computation thread exists (a dedicated progress core must be taken away from the main
// thread before OpenMP creates its workers), and calibrates its cost model (OVX_Calibrate,
// before any collective). All ranks agree on success.
#pragma once

#include "bench/common/implementation.hpp"
#include "bench/common/run_context.hpp"

namespace overlap::apps {

// Returns 0, or 2 after rank 0 printed one line saying why liboverlap could not start (on
// any rank).
int start_liboverlap(bench::ProgressPolicy policy);

// The cost model's parameters in use, for the result's metadata.
bench::CostModelFacts liboverlap_cost_model();

}  // namespace overlap::apps
