// How many computation threads a rank gets and on which cores, decided before MPI_Init
// (it is validated input): one per physical core of the rank's share of the node, each
// bound while it computes, the last --dedicate-cores cores left free (compute/core_plan).
#pragma once

#include <string>

#include "bench/common/benchmark.hpp"

namespace overlap::apps {

// `threads_text` "auto" (or empty) means one per core. `dedicate_at_least`: cores a
// progress policy needs free whatever --dedicate-cores says (liboverlap's dedicated
// thread: 1). Throws UsageError when the numbers do not fit the cores.
bench::RunPlan plan_threads(const std::string& threads_text, const std::string& dedicate_text,
                            int dedicate_at_least);

// "0+4" per thread, for the run context.
std::vector<std::string> describe_pus(const bench::RunPlan& plan);

}  // namespace overlap::apps
