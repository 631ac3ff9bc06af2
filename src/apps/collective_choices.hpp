// Option values naming collectives, implementations and liboverlap progress policies,
// shared by the subcommands that run collectives (nbc, latency, impact). Each throws
// UsageError naming the option, the value and what is allowed.
#pragma once

#include <string>
#include <vector>

#include "bench/nbc_op.hpp"

namespace overlap::apps {

// "--op": comma list of collective names or "all"; duplicates dropped, order kept.
std::vector<bench::NbcOp> parse_ops(const std::string& text);
// "--impl": comma list of mpi, overlap.
std::vector<bench::NbcImpl> parse_impls(const std::string& text);
// "--progress": caller, shared or dedicated.
std::string parse_progress(const std::string& text);

}  // namespace overlap::apps
