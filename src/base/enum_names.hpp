// The names of a vocabulary (progress policy, diagnosis, implementation, collective...),
// written once as a table next to the enum and used for files, the command line and
// messages. Parsing an unknown name gives nothing, never a default: the caller decides
// whether that is a usage error (command line) or a malformed file (resume, report).
#pragma once

#include <array>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/usage_error.hpp"

namespace overlap {

template <class E>
struct EnumName {
  E value;
  std::string_view name;
};

template <class E, std::size_t N>
class EnumNames {
 public:
  // `what` names the vocabulary in messages: "progress policy".
  constexpr EnumNames(std::string_view what, std::array<EnumName<E>, N> table)
      : what_(what), table_(table) {}

  std::string_view name(E value) const {
    for (const auto& entry : table_) {
      if (entry.value == value) return entry.name;
    }
    return "?";  // unreachable for a complete table; tests check completeness
  }

  std::optional<E> parse(std::string_view text) const {
    for (const auto& entry : table_) {
      if (entry.name == text) return entry.value;
    }
    return std::nullopt;
  }

  // For the command line: throws UsageError "OPTION: 'x' is not a WHAT; allowed: a, b".
  E parse_option(std::string_view text, std::string_view option) const {
    if (auto v = parse(text)) return *v;
    throw UsageError(std::string(option) + ": '" + std::string(text) + "' is not " +
                     with_article() + "; allowed: " + list());
  }

  std::vector<E> values() const {
    std::vector<E> v;
    for (const auto& entry : table_) v.push_back(entry.value);
    return v;
  }

  std::vector<std::string> names() const {
    std::vector<std::string> v;
    for (const auto& entry : table_) v.emplace_back(entry.name);
    return v;
  }

  std::string list() const {  // "a, b, c"
    std::string s;
    for (const auto& entry : table_) s += (s.empty() ? "" : ", ") + std::string(entry.name);
    return s;
  }

  std::string_view what() const { return what_; }
  // "a progress policy", "an implementation".
  std::string with_article() const {
    const bool vowel =
        !what_.empty() && std::string_view("aeiou").find(what_[0]) != std::string_view::npos;
    return (vowel ? "an " : "a ") + std::string(what_);
  }

 private:
  std::string_view what_;
  std::array<EnumName<E>, N> table_;
};

}  // namespace overlap
