// The human view of `nbc` and `impact` runs: a table printed row by row as points finish,
// in readable units; invalid points print their reason, never numbers.
#pragma once

#include <ostream>
#include <vector>

#include "bench/impact_bench.hpp"
#include "bench/nbc_bench.hpp"
#include "bench/run_context.hpp"

namespace overlap::output {

void print_nbc_header(std::ostream& out, const bench::RunContext& ctx);
void print_nbc_point(std::ostream& out, const bench::NbcPointRecord& point);
void print_impact(std::ostream& out, const bench::RunContext& ctx,
                  const std::vector<bench::ImpactPoint>& points);

}  // namespace overlap::output
