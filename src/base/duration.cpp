#include "base/duration.hpp"

#include <fmt/format.h>

#include <array>
#include <cctype>
#include <charconv>
#include <cmath>
#include <string>
#include <utility>

#include "base/usage_error.hpp"

namespace overlap {
namespace {

constexpr std::array<std::pair<std::string_view, double>, 5> kUnits{
    {{"ns", 1e-9}, {"us", 1e-6}, {"ms", 1e-3}, {"min", 60.0}, {"s", 1.0}}};

[[noreturn]] void reject_duration(std::string_view text, std::string_view what) {
  throw UsageError(
      fmt::format("{}: '{}' is not a duration; allowed: a non-negative number "
                  "followed by ns, us, ms, s or min (e.g. 10s, 250us)",
                  what, text));
}

}  // namespace

double parse_duration(std::string_view text, std::string_view what) {
  for (const auto& [unit, scale] : kUnits) {
    if (text.size() <= unit.size() || !text.ends_with(unit)) continue;
    std::string_view number = text.substr(0, text.size() - unit.size());
    // "10ms" also ends with "s"; the unit must be the whole alphabetic suffix.
    if (std::isalpha(static_cast<unsigned char>(number.back()))) continue;
    double value = 0;
    auto [end, ec] = std::from_chars(number.data(), number.data() + number.size(), value);
    if (ec != std::errc{} || end != number.data() + number.size() || !std::isfinite(value) ||
        value < 0) {
      reject_duration(text, what);
    }
    return value * scale;
  }
  reject_duration(text, what);
}

int parse_count(std::string_view text, std::string_view what, int max) {
  long long value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc{} || end != text.data() + text.size() || value <= 0 ||
      value > max) {
    throw UsageError(
        fmt::format("{}: '{}' is not allowed; expected an integer from 1 to {}", what, text, max));
  }
  return static_cast<int>(value);
}

std::string format_duration(double seconds) {
  if (!std::isfinite(seconds)) return "invalid";
  if (seconds == 0) return "0 s";
  // Round to three significant digits first, then pick the unit, so 999.9e-6 reads
  // "1 ms" rather than "1e+03 us".
  const double rounded = std::stod(fmt::format("{:.3g}", seconds));
  const double magnitude = std::fabs(rounded);
  if (magnitude < 1e-6) return fmt::format("{:.3g} ns", rounded * 1e9);
  if (magnitude < 1e-3) return fmt::format("{:.3g} us", rounded * 1e6);
  if (magnitude < 1.0) return fmt::format("{:.3g} ms", rounded * 1e3);
  return fmt::format("{:.4g} s", rounded);
}

}  // namespace overlap
