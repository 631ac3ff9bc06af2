#include "compute/core_plan.hpp"

#include <algorithm>

namespace overlap::compute {
namespace {

std::vector<Core> share_of(const CoreRequest& r) {
  const int n = static_cast<int>(r.cores.size());
  if (!r.mask_is_whole_machine || r.local_ranks <= 1 || r.local_rank < 0 || n == 0) {
    return r.cores;
  }
  if (n < r.local_ranks) return {r.cores[static_cast<std::size_t>(r.local_rank % n)]};
  const int share = n / r.local_ranks;
  const auto first = r.cores.begin() + r.local_rank * share;
  return {first, first + share};
}

}  // namespace

CorePlan plan_cores(const CoreRequest& r) {
  CorePlan plan;
  std::vector<Core> mine = share_of(r);
  plan.cores_available = static_cast<int>(mine.size());
  if (mine.empty()) {
    plan.error = "this rank's CPU mask holds no core";
    return plan;
  }
  if (r.dedicate < 0 || r.dedicate >= plan.cores_available) {
    plan.error = "this rank has " + std::to_string(plan.cores_available) +
                 " core(s) and needs at least one for the computation";
    return plan;
  }
  const auto keep = mine.end() - r.dedicate;
  plan.free_cores.assign(keep, mine.end());
  mine.erase(keep, mine.end());
  const int threads = r.threads > 0 ? r.threads : static_cast<int>(mine.size());
  // More threads than cores (asked for explicitly): they share the cores round-robin.
  for (int t = 0; t < threads; ++t) {
    plan.thread_pus.push_back(mine[static_cast<std::size_t>(t) % mine.size()].pus);
  }
  return plan;
}

}  // namespace overlap::compute
