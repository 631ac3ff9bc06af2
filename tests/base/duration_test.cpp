#include "base/duration.hpp"

#include <gtest/gtest.h>

#include <limits>
#include <string>

#include "base/usage_error.hpp"

namespace overlap {
namespace {

// Returns the UsageError message, or fails the test when nothing (or something else) is thrown.
template <typename F>
std::string usage_error_of(F&& f) {
  try {
    f();
  } catch (const UsageError& e) {
    return e.what();
  } catch (...) {
    ADD_FAILURE() << "threw something other than UsageError";
    return {};
  }
  ADD_FAILURE() << "did not throw";
  return {};
}

TEST(ParseDuration, AcceptsEveryUnit) {
  EXPECT_DOUBLE_EQ(parse_duration("10ns", "--x"), 10e-9);
  EXPECT_DOUBLE_EQ(parse_duration("250us", "--x"), 250e-6);
  EXPECT_DOUBLE_EQ(parse_duration("7ms", "--x"), 7e-3);
  EXPECT_DOUBLE_EQ(parse_duration("10s", "--x"), 10.0);
  EXPECT_DOUBLE_EQ(parse_duration("2min", "--x"), 120.0);
}

TEST(ParseDuration, AcceptsFractionsZeroAndExponents) {
  EXPECT_DOUBLE_EQ(parse_duration("1.5ms", "--x"), 1.5e-3);
  EXPECT_DOUBLE_EQ(parse_duration("0.5min", "--x"), 30.0);
  EXPECT_EQ(parse_duration("0s", "--x"), 0.0);
  EXPECT_EQ(parse_duration("0ns", "--x"), 0.0);
  EXPECT_DOUBLE_EQ(parse_duration("2e-3s", "--x"), 2e-3);
  EXPECT_DOUBLE_EQ(parse_duration("2E-3s", "--x"), 2e-3);
  EXPECT_DOUBLE_EQ(parse_duration("1e3ms", "--x"), 1.0);
  EXPECT_DOUBLE_EQ(parse_duration("2.5e1us", "--x"), 25e-6);
}

// "ms" ends with "s" and "min" contains "m": the whole alphabetic suffix must be the unit.
TEST(ParseDuration, SuffixIsMatchedAsAWhole) {
  EXPECT_DOUBLE_EQ(parse_duration("3ms", "--x"), 3e-3);  // not "3m" seconds
  EXPECT_DOUBLE_EQ(parse_duration("3ns", "--x"), 3e-9);
  EXPECT_DOUBLE_EQ(parse_duration("3us", "--x"), 3e-6);
  EXPECT_THROW(parse_duration("3m", "--x"), UsageError);
  EXPECT_THROW(parse_duration("3mins", "--x"), UsageError);
  EXPECT_THROW(parse_duration("3mss", "--x"), UsageError);
  EXPECT_THROW(parse_duration("10xs", "--x"), UsageError);
  EXPECT_THROW(parse_duration("3h", "--x"), UsageError);
}

TEST(ParseDuration, RejectsMalformedText) {
  for (const char* text : {"",       "10",    "ms",   "s",     "min",   "-1s",  "-0.5ms", "1.5 ms",
                           "10 s",   " 1s",   "1s ",  "+1s",   "inf s", "infs", "nan s",  "nans",
                           "1e400s", "1..5s", "1,5s", "0x10s", "10MS",  "10S"}) {
    EXPECT_THROW(parse_duration(text, "--span"), UsageError) << "'" << text << "'";
  }
}

TEST(ParseDuration, MessageNamesOptionValueAndAllowedUnits) {
  const std::string msg = usage_error_of([] { parse_duration("10xs", "--verify-after"); });
  EXPECT_NE(msg.find("--verify-after"), std::string::npos) << msg;
  EXPECT_NE(msg.find("'10xs'"), std::string::npos) << msg;
  for (const char* unit : {"ns", "us", "ms", "min"}) {
    EXPECT_NE(msg.find(unit), std::string::npos) << msg;
  }
  EXPECT_EQ(msg.find('\n'), std::string::npos) << "usage errors are one line: " << msg;

  // A negative number is a duration-shaped value and must still be rejected by name.
  const std::string neg = usage_error_of([] { parse_duration("-1s", "--span"); });
  EXPECT_NE(neg.find("--span"), std::string::npos) << neg;
  EXPECT_NE(neg.find("'-1s'"), std::string::npos) << neg;
}

TEST(ParseCount, AcceptsPositiveIntegers) {
  EXPECT_EQ(parse_count("1", "--n"), 1);
  EXPECT_EQ(parse_count("100", "--n"), 100);
  EXPECT_EQ(parse_count("1000000000", "--n"), 1'000'000'000);
  EXPECT_EQ(parse_count("7", "--n", 7), 7);
}

// Counts end up in ints: anything that would wrap must be refused, not wrapped.
TEST(ParseCount, RejectsValuesAboveTheLimit) {
  for (const char* text : {"1000000001", "2147483648", "4294967296"}) {
    EXPECT_THROW(parse_count(text, "--n"), UsageError) << "'" << text << "'";
  }
  EXPECT_THROW(parse_count("8", "--n", 7), UsageError);
  EXPECT_NE(usage_error_of([] { parse_count("8", "--passes", 7); }).find("1 to 7"),
            std::string::npos);
}

TEST(ParseCount, RejectsZeroNegativesJunkAndOverflow) {
  for (const char* text : {"0", "-3", "3x", "", "x3", "3.0", "3e2", " 3", "3 ", "+3", "0x10",
                           "9223372036854775808", "99999999999999999999999999"}) {
    EXPECT_THROW(parse_count(text, "--n"), UsageError) << "'" << text << "'";
  }
}

TEST(ParseCount, MessageNamesOptionAndValue) {
  const std::string msg = usage_error_of([] { parse_count("-3", "--patience"); });
  EXPECT_NE(msg.find("--patience"), std::string::npos) << msg;
  EXPECT_NE(msg.find("'-3'"), std::string::npos) << msg;
  EXPECT_NE(msg.find("integer from 1"), std::string::npos) << msg;
}

TEST(FormatDuration, PicksTheMostReadableUnit) {
  EXPECT_EQ(format_duration(0), "0 s");
  EXPECT_EQ(format_duration(12e-9), "12 ns");
  EXPECT_EQ(format_duration(12.3e-6), "12.3 us");
  EXPECT_EQ(format_duration(1e-6), "1 us");  // the boundary belongs to the larger unit
  EXPECT_EQ(format_duration(4.56e-3), "4.56 ms");
  EXPECT_EQ(format_duration(1e-3), "1 ms");
  EXPECT_EQ(format_duration(250e-3), "250 ms");
  EXPECT_EQ(format_duration(1.23), "1.23 s");
  EXPECT_EQ(format_duration(42.0), "42 s");
}

TEST(FormatDuration, ThreeSignificantDigits) {
  EXPECT_EQ(format_duration(1.23456e-6), "1.23 us");
  EXPECT_EQ(format_duration(123.456e-3), "123 ms");
  // {:.3g} drops trailing zeros: "1.2 s", although the header's example says "1.20 s".
  EXPECT_EQ(format_duration(1.2), "1.2 s");
}

TEST(FormatDuration, NegativeKeepsSignAndUnitOfMagnitude) {
  EXPECT_EQ(format_duration(-2.5e-3), "-2.5 ms");
  EXPECT_EQ(format_duration(-80e-9), "-80 ns");
}

TEST(FormatDuration, NonFiniteIsInvalid) {
  EXPECT_EQ(format_duration(std::numeric_limits<double>::infinity()), "invalid");
  EXPECT_EQ(format_duration(-std::numeric_limits<double>::infinity()), "invalid");
  EXPECT_EQ(format_duration(std::numeric_limits<double>::quiet_NaN()), "invalid");
}

// A value just below a unit boundary rounds up into the next unit instead of printing
// as 1e+03 of the smaller one.
TEST(FormatDuration, ValuesJustBelowAUnitBoundaryStayReadable) {
  for (double v : {999.9e-9, 999.9e-6, 0.9999, 1234.0}) {
    EXPECT_EQ(format_duration(v).find("e+"), std::string::npos) << format_duration(v);
  }
  EXPECT_EQ(format_duration(999.9e-6), "1 ms");
  EXPECT_EQ(format_duration(0.9999), "1 s");
}

}  // namespace
}  // namespace overlap
