// Durations as users type them ("10s", "250us", "1.5ms") and as humans read them.
// Inside the code every time is a double in seconds.
#pragma once

#include <chrono>
#include <string>
#include <string_view>

namespace overlap {

// Parses "<number><unit>" with unit one of ns, us, ms, s, min. Throws UsageError naming
// `what` (e.g. "--verify-after") and the value when the text is malformed, not finite,
// or negative.
double parse_duration(std::string_view text, std::string_view what);

// Parses a positive integer count up to `max`; throws UsageError for zero, negatives,
// junk, and values above max.
int parse_count(std::string_view text, std::string_view what, int max = 1'000'000'000);

// "12.3 us", "4.56 ms", "1.2 s": three significant digits in the most readable unit
// (seconds keep up to four, so 1234 s is not printed in exponent form).
std::string format_duration(double seconds);

// Seconds elapsed on the steady clock since `start`.
inline double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace overlap
