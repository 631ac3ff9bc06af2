// The human view of a sync run: a per-rank table and a summary, in readable units.
#pragma once

#include <ostream>

#include "bench/run_context.hpp"
#include "bench/sync_bench.hpp"

namespace overlap::output {

void print_sync(std::ostream& out, const bench::RunContext& ctx, const bench::SyncRecord& record);

}  // namespace overlap::output
