#include "apps/thread_plan.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

#include "base/duration.hpp"
#include "base/usage_error.hpp"
#include "compute/machine_cores.hpp"

namespace overlap::apps {

bench::RunPlan plan_threads(const std::string& threads_text, const std::string& dedicate_text,
                            int dedicate_at_least) {
  compute::CoreRequest request;
  try {
    request = compute::machine_core_request();
  } catch (const std::runtime_error& e) {
    throw UsageError(std::string("--threads: cannot place computation threads: ") + e.what());
  }
  const int asked = dedicate_text.empty() || dedicate_text == "0"
                        ? 0
                        : parse_count(dedicate_text, "--dedicate-cores", 4096);
  request.dedicate = std::max(asked, dedicate_at_least);
  request.threads = threads_text.empty() || threads_text == "auto"
                        ? 0
                        : parse_count(threads_text, "--threads", 4096);
  const compute::CorePlan plan = compute::plan_cores(request);
  if (!plan.error.empty() && asked < dedicate_at_least) {
    // The policy asked for the core, not --dedicate-cores: say which, and what to do.
    throw UsageError(
        fmt::format("--progress dedicated: the progress thread needs a core of its own besides the "
                    "computation's, but {} (allowed here: --progress auto, shared or caller)",
                    plan.error));
  }
  if (!plan.error.empty()) {
    throw UsageError(fmt::format("--dedicate-cores: '{}' is not allowed; {}",
                                 std::to_string(request.dedicate), plan.error));
  }
  return {plan.thread_pus, request.dedicate};
}

std::vector<std::string> describe_pus(const bench::RunPlan& plan) {
  std::vector<std::string> out;
  for (const auto& pus : plan.thread_pus) {
    std::string s;
    for (int pu : pus) s += (s.empty() ? "" : "+") + std::to_string(pu);
    out.push_back(s);
  }
  return out;
}

}  // namespace overlap::apps
