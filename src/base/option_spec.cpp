#include "base/option_spec.hpp"

#include <fmt/format.h>

#include <stdexcept>

#include "base/duration.hpp"
#include "base/usage_error.hpp"

namespace overlap {

OptionValues::OptionValues(std::vector<OptionSpec> specs, std::map<std::string, std::string> given)
    : specs_(std::move(specs)), given_(std::move(given)) {
  for (const auto& [name, text] : given_) spec(name);  // every typed option must be known
}

const OptionSpec& OptionValues::spec(const std::string& name) const {
  for (const OptionSpec& s : specs_) {
    if (s.name == name) return s;
  }
  throw std::logic_error("no option " + name);
}

std::string OptionValues::text(const std::string& name) const {
  const OptionSpec& s = spec(name);
  const auto it = given_.find(name);
  return it != given_.end() ? it->second : s.default_text;
}

std::optional<std::string> OptionValues::typed(const std::string& name) const {
  spec(name);
  const auto it = given_.find(name);
  if (it == given_.end()) return std::nullopt;
  return it->second;
}

int parse_count_or_zero(const std::string& text, const std::string& what, int max) {
  if (text == "0") return 0;
  try {
    return parse_count(text, what, max);
  } catch (const UsageError&) {
    throw UsageError(
        fmt::format("{}: '{}' is not allowed; expected an integer from 0 to {}", what, text, max));
  }
}

}  // namespace overlap
