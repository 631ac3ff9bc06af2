// Option values that are more than one number: lists of durations ("1ms,4ms,16ms" or the
// log2 range "1ms:64ms") and of byte sizes ("64KiB:16MiB"), comma lists of names, byte
// sizes ("1GiB") and fractions ("10%"). Each throws UsageError naming the option and the
// value on bad input.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace overlap {

inline constexpr int kMaxListLength = 64;

// Comma-separated items, each a positive duration or a range "lo:hi" that expands to
// lo, 2 lo, 4 lo, ... up to hi (hi included when it is on the ladder). Sorted, no
// duplicates, at most kMaxListLength values.
std::vector<double> parse_duration_list(std::string_view text, std::string_view what);

// Largest size parse_byte_list accepts: far above any message, and exact as a double.
inline constexpr double kMaxListBytes = 1024.0 * 1024 * 1024 * 1024;  // 1 TiB

// Byte sizes as parse_bytes reads them ("64KiB"), same list and range grammar as
// parse_duration_list: "64KiB:16MiB" is 64KiB, 128KiB, ..., 16MiB. Each value must be a
// whole number of bytes, at most kMaxListBytes. Sorted, no duplicates.
std::vector<long> parse_byte_list(std::string_view text, std::string_view what);

// Comma-separated non-empty names, in order, duplicates removed.
std::vector<std::string> parse_name_list(std::string_view text, std::string_view what);

// A positive byte size: a number with B, KiB, MiB or GiB (e.g. 512MiB).
double parse_bytes(std::string_view text, std::string_view what);

// A fraction in (0, 1): "0.1" or "10%".
double parse_fraction(std::string_view text, std::string_view what);

}  // namespace overlap
