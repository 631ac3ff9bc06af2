#include "apps/collective_choices.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "base/usage_error.hpp"
#include "base/value_lists.hpp"

namespace overlap::apps {

std::vector<bench::NbcOp> parse_ops(const std::string& text) {
  std::vector<bench::NbcOp> ops;
  const auto add = [&](bench::NbcOp op) {
    if (std::find(ops.begin(), ops.end(), op) == ops.end()) ops.push_back(op);
  };
  for (const std::string& name : parse_name_list(text, "--op")) {
    if (name == "all") {
      for (bench::NbcOp op : bench::all_nbc_ops()) add(op);
      continue;
    }
    const auto op = bench::parse_nbc_op(name);
    if (!op) {
      throw UsageError(fmt::format("--op: '{}' is not a nonblocking collective; allowed: {}, all",
                                   name, bench::all_nbc_op_names()));
    }
    add(*op);
  }
  return ops;
}

std::vector<bench::NbcImpl> parse_impls(const std::string& text) {
  std::vector<bench::NbcImpl> impls;
  for (const std::string& name : parse_name_list(text, "--impl")) {
    const auto impl = bench::parse_nbc_impl(name);
    if (!impl) {
      throw UsageError(
          fmt::format("--impl: '{}' is not an implementation; allowed: mpi (the MPI library's), "
                      "overlap (liboverlap's)",
                      name));
    }
    if (std::find(impls.begin(), impls.end(), *impl) == impls.end()) impls.push_back(*impl);
  }
  return impls;
}

std::string parse_progress(const std::string& text) {
  if (text == "caller" || text == "shared" || text == "dedicated") return text;
  throw UsageError(fmt::format(
      "--progress: '{}' is not a progress policy; allowed: caller, shared, dedicated", text));
}

}  // namespace overlap::apps
