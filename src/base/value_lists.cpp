#include "base/value_lists.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <functional>
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

// Message sizes are whole bytes: "1.5KiB" is, "0.1KiB" is not.
double whole_bytes(std::string_view item, std::string_view what) {
  const double b = parse_bytes(item, what);
  if (b != std::floor(b)) {
    throw UsageError(fmt::format("{}: '{}' is not a whole number of bytes", what, item));
  }
  if (b > kMaxListBytes) {
    throw UsageError(
        fmt::format("{}: '{}' is not allowed; sizes must be at most 1TiB", what, item));
  }
  return b;
}

// The grammar both lists share: comma-separated items, each one value or a range "lo:hi"
// that expands to lo, 2 lo, 4 lo, ... up to hi. `parse_item` reads (and checks) one
// positive value; `kind` and `example` make the error message. `slack` lets a ladder step
// that misses hi by rounding still count as hi (times); whole bytes are exact and need none.
std::vector<double> parse_ladder_list(std::string_view text, std::string_view what,
                                      std::string_view kind, std::string_view example, double slack,
                                      const std::function<double(std::string_view)>& parse_item) {
  const auto usage = [&](const std::string& why) {
    return UsageError(fmt::format("{}: '{}' is not a list of {}; {} (allowed: e.g. {})", what, text,
                                  kind, why, example));
  };
  if (text.empty()) throw usage("it is empty");
  std::vector<double> values;
  for (std::string_view item : split(text, ',')) {
    if (item.empty()) throw usage("it has an empty item");
    const auto colon = item.find(':');
    if (colon == std::string_view::npos) {
      values.push_back(parse_item(item));
      continue;
    }
    const double lo = parse_item(item.substr(0, colon));
    const double hi = parse_item(item.substr(colon + 1));
    if (hi < lo) throw usage(fmt::format("range '{}' ends before it starts", item));
    for (double v = lo; v <= hi * (1 + slack); v *= 2) {
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

}  // namespace

std::vector<double> parse_duration_list(std::string_view text, std::string_view what) {
  return parse_ladder_list(text, what, "times", "1ms,4ms,16ms or the log2 range 1ms:64ms", 1e-9,
                           [&](std::string_view item) { return positive_duration(item, what); });
}

std::vector<long> parse_byte_list(std::string_view text, std::string_view what) {
  const std::vector<double> values =
      parse_ladder_list(text, what, "sizes", "64KiB,1MiB or the log2 range 64KiB:16MiB", 0.0,
                        [&](std::string_view item) { return whole_bytes(item, what); });
  std::vector<long> bytes;
  // Exact: every value is a whole number of at most kMaxListBytes (< 2^53).
  for (double v : values) bytes.push_back(static_cast<long>(v));
  return bytes;
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
