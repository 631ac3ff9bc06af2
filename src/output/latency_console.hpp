// The human view of `latency` runs: one row per (op, size), printed as it finishes, with
// the median latency of each implementation and overlap/mpi; invalid rows print their
// reason, never numbers.
#pragma once

#include <ostream>

#include "bench/latency_bench.hpp"
#include "bench/run_context.hpp"

namespace overlap::output {

void print_latency_header(std::ostream& out, const bench::RunContext& ctx,
                          const bench::LatencyConfig& config);
void print_latency_point(std::ostream& out, const bench::LatencyPointRecord& record);

}  // namespace overlap::output
