#include "bench/common/common_options.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "base/usage_error.hpp"
#include "base/value_lists.hpp"

namespace overlap::bench {

std::vector<Collective> parse_collectives(const std::string& text, const std::string& option,
                                          const CollectiveNames& names) {
  std::vector<Collective> ops;
  const auto add = [&](Collective op) {
    if (std::find(ops.begin(), ops.end(), op) == ops.end()) ops.push_back(op);
  };
  for (const std::string& name : parse_name_list(text, option)) {
    if (name == "all") {  // the collectives: halo is point-to-point, asked for by name
      for (Collective op : names.values()) {
        if (op != Collective::halo) add(op);
      }
      continue;
    }
    const auto op = names.parse(name);
    if (!op) {
      throw UsageError(fmt::format("{}: '{}' is not {}; allowed: {}, all", option, name,
                                   names.with_article(), names.list()));
    }
    add(*op);
  }
  return ops;
}

std::string op_list_help(const CollectiveNames& names) {
  return "Collectives, comma-separated: " + names.list() + ", or all (the collectives; " +
         std::string(names.name(Collective::halo)) +
         ", a point-to-point exchange with two neighbours, by name)";
}

std::vector<Implementation> parse_impls(const std::string& text, const std::string& option) {
  std::vector<Implementation> impls;
  for (const std::string& name : parse_name_list(text, option)) {
    const Implementation impl = kImplementationNames.parse_option(name, option);
    if (std::find(impls.begin(), impls.end(), impl) == impls.end()) impls.push_back(impl);
  }
  return impls;
}

void check_sizes_hold_an_element(const std::vector<Collective>& ops, const std::vector<long>& sizes,
                                 const CollectiveNames& names) {
  for (Collective op : ops) {
    if (op == Collective::barrier) continue;
    const int element = element_bytes(op);
    for (long bytes : sizes) {
      if (bytes >= element) continue;
      throw UsageError(fmt::format(
          "--sizes: {} B is less than one element of {} ({} B); allowed: sizes of at least {}B",
          bytes, names.name(op), element, element));
    }
  }
}

std::vector<OptionSpec> clock_options() {
  return {{"--patience", "100", "Clock sync min-RTT stop rule", "patience"},
          {"--sync-span", "1s", "Time between the two initial clock syncs", "sync_span_s"}};
}

}  // namespace overlap::bench
