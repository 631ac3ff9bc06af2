#include "base/value_lists.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <utility>

#include "base/duration.hpp"
#include "base/usage_error.hpp"

namespace overlap {
namespace {

std::vector<std::string_view> split(std::string_view text, char sep) {
  std::vector<std::string_view> parts;
  std::size_t start = 0;
  while (true) {
    const auto end = text.find(sep, start);
    parts.push_back(text.substr(start, end - start));
    if (end == std::string_view::npos) return parts;
    start = end + 1;
  }
}

bool parse_number(std::string_view text, double& value) {
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  return !text.empty() && ec == std::errc{} && end == text.data() + text.size() &&
         std::isfinite(value);
}

double positive_duration(std::string_view item, std::string_view what) {
  const double d = parse_duration(item, what);
  if (d <= 0)
    throw UsageError(fmt::format("{}: '{}' is not allowed; times must be > 0", what, item));
  return d;
}

}  // namespace

std::vector<double> parse_duration_list(std::string_view text, std::string_view what) {
  const auto usage = [&](const std::string& why) {
    return UsageError(
        fmt::format("{}: '{}' is not a list of times; {} (allowed: e.g. "
                    "1ms,4ms,16ms or the log2 range 1ms:64ms)",
                    what, text, why));
  };
  if (text.empty()) throw usage("it is empty");
  std::vector<double> values;
  for (std::string_view item : split(text, ',')) {
    if (item.empty()) throw usage("it has an empty item");
    const auto colon = item.find(':');
    if (colon == std::string_view::npos) {
      values.push_back(positive_duration(item, what));
      continue;
    }
    const double lo = positive_duration(item.substr(0, colon), what);
    const double hi = positive_duration(item.substr(colon + 1), what);
    if (hi < lo) throw usage(fmt::format("range '{}' ends before it starts", item));
    for (double v = lo; v <= hi * (1 + 1e-9); v *= 2) {
      values.push_back(v);
      if (values.size() > kMaxListLength) break;
    }
  }
  std::sort(values.begin(), values.end());
  values.erase(std::unique(values.begin(), values.end(),
                           [](double a, double b) { return std::abs(a - b) <= 1e-12 * b; }),
               values.end());
  if (values.size() > kMaxListLength) {
    throw usage(fmt::format("more than {} values", kMaxListLength));
  }
  return values;
}

std::vector<std::string> parse_name_list(std::string_view text, std::string_view what) {
  std::vector<std::string> names;
  for (std::string_view item : split(text, ',')) {
    if (item.empty()) {
      throw UsageError(
          fmt::format("{}: '{}' has an empty item; expected comma-separated names", what, text));
    }
    if (std::find(names.begin(), names.end(), item) == names.end()) names.emplace_back(item);
  }
  return names;
}

double parse_bytes(std::string_view text, std::string_view what) {
  static constexpr std::pair<std::string_view, double> kUnits[] = {
      {"GiB", 1024.0 * 1024 * 1024}, {"MiB", 1024.0 * 1024}, {"KiB", 1024.0}, {"B", 1.0}};
  for (const auto& [unit, scale] : kUnits) {
    if (!text.ends_with(unit)) continue;
    double value = 0;
    if (parse_number(text.substr(0, text.size() - unit.size()), value) && value > 0) {
      return value * scale;
    }
    break;
  }
  throw UsageError(fmt::format(
      "{}: '{}' is not a size; allowed: a positive number followed by B, KiB, MiB or GiB", what,
      text));
}

double parse_fraction(std::string_view text, std::string_view what) {
  double value = 0;
  const bool percent = text.ends_with('%');
  const bool ok = parse_number(percent ? text.substr(0, text.size() - 1) : text, value);
  if (percent) value /= 100;
  if (!ok || value <= 0 || value >= 1) {
    throw UsageError(fmt::format(
        "{}: '{}' is not allowed; expected a fraction between 0 and 1 (e.g. 0.1 or 10%)", what,
        text));
  }
  return value;
}

}  // namespace overlap
