// Option values several benchmarks share: lists of collectives, implementations, the
// progress policy, and the options of the global clock. Each throws UsageError naming the
// option, the value and what is allowed.
#pragma once

#include <string>
#include <vector>

#include "base/option_spec.hpp"
#include "bench/common/collective.hpp"
#include "bench/common/implementation.hpp"

namespace overlap::bench {

// Comma list of names from `names` or "all" (every collective, not halo); duplicates
// dropped, order kept.
std::vector<Collective> parse_collectives(const std::string& text, const std::string& option,
                                          const CollectiveNames& names);
// The help of an --op list over `names`.
std::string op_list_help(const CollectiveNames& names);
// Comma list of mpi, overlap.
std::vector<Implementation> parse_impls(const std::string& text, const std::string& option);

// "--sizes": sizes are rounded down to whole elements when measured; one that holds no
// element of a collective would measure an empty message, so it is refused.
void check_sizes_hold_an_element(const std::vector<Collective>& ops, const std::vector<long>& sizes,
                                 const CollectiveNames& names);

// "--patience" and "--sync-span": how the global clock is set up.
std::vector<OptionSpec> clock_options();

}  // namespace overlap::bench
