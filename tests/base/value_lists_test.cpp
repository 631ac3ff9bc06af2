#include "base/value_lists.hpp"

#include <gtest/gtest.h>

#include "base/usage_error.hpp"

namespace overlap {
namespace {

TEST(DurationList, ExplicitItemsAreSortedAndDeduplicated) {
  EXPECT_EQ(parse_duration_list("16ms,1ms,4ms,1ms", "--x"),
            (std::vector<double>{1e-3, 4e-3, 16e-3}));
}

TEST(DurationList, RangesAreLog2Ladders) {
  const auto v = parse_duration_list("1ms:64ms", "--x");
  ASSERT_EQ(v.size(), 7u);
  EXPECT_DOUBLE_EQ(v.front(), 1e-3);
  EXPECT_DOUBLE_EQ(v.back(), 64e-3);
  EXPECT_DOUBLE_EQ(v[3], 8e-3);
  // An end off the ladder stops below it; items and ranges mix.
  EXPECT_EQ(parse_duration_list("1ms:5ms,100ms", "--x"),
            (std::vector<double>{1e-3, 2e-3, 4e-3, 100e-3}));
}

TEST(DurationList, BadListsNameTheOptionAndValue) {
  for (const char* bad :
       {"", "1ms,,4ms", "4ms:1ms", "5parsecs", "0ms", "1ms:", "1ns:1000000000000s"}) {
    try {
      parse_duration_list(bad, "--comm-times");
      ADD_FAILURE() << "accepted '" << bad << "'";
    } catch (const UsageError& e) {
      EXPECT_NE(std::string(e.what()).find("--comm-times"), std::string::npos) << e.what();
    }
  }
}

TEST(ByteList, ExplicitItemsAreSortedAndDeduplicated) {
  EXPECT_EQ(parse_byte_list("1MiB,64KiB,1024KiB,100B", "--x"),
            (std::vector<long>{100, 64 * 1024, 1024 * 1024}));
  EXPECT_EQ(parse_byte_list("1.5KiB", "--x"), (std::vector<long>{1536}));
}

TEST(ByteList, RangesAreLog2Ladders) {
  const auto v = parse_byte_list("64KiB:16MiB", "--x");
  ASSERT_EQ(v.size(), 9u);
  EXPECT_EQ(v.front(), 64L * 1024);
  EXPECT_EQ(v[1], 128L * 1024);
  EXPECT_EQ(v.back(), 16L * 1024 * 1024);
  // An end off the ladder stops below it, exactly (no rounding slack for whole bytes).
  EXPECT_EQ(parse_byte_list("64KiB:200KiB,1B", "--x"),
            (std::vector<long>{1, 64 * 1024, 128 * 1024}));
  EXPECT_EQ(parse_byte_list("1000000001B:2000000001B", "--x"), (std::vector<long>{1000000001}));
  EXPECT_EQ(parse_byte_list("1GiB:1024GiB", "--x").back(), 1024L * 1024 * 1024 * 1024);
}

TEST(ByteList, BadListsNameTheOptionAndValueInOneLine) {
  for (const char* bad : {"", "64KiB,,1MiB", "1MiB:64KiB", "0KiB", "12XB", "1.5B", "0.1KiB",
                          "64KiB:", "2048GiB", "1B:2048GiB"}) {
    try {
      parse_byte_list(bad, "--sizes");
      ADD_FAILURE() << "accepted '" << bad << "'";
    } catch (const UsageError& e) {
      const std::string what = e.what();
      EXPECT_NE(what.find("--sizes"), std::string::npos) << what;
      EXPECT_EQ(what.find('\n'), std::string::npos) << what;
    }
  }
}

TEST(NameList, SplitsAndDeduplicates) {
  EXPECT_EQ(parse_name_list("a,b,a", "--op"), (std::vector<std::string>{"a", "b"}));
  EXPECT_THROW(parse_name_list("a,,b", "--op"), UsageError);
  EXPECT_THROW(parse_name_list("", "--op"), UsageError);
}

TEST(Bytes, UnitsAndErrors) {
  EXPECT_DOUBLE_EQ(parse_bytes("512MiB", "--m"), 512.0 * 1024 * 1024);
  EXPECT_DOUBLE_EQ(parse_bytes("1GiB", "--m"), 1024.0 * 1024 * 1024);
  EXPECT_DOUBLE_EQ(parse_bytes("100B", "--m"), 100.0);
  for (const char* bad : {"12XB", "0MiB", "-1KiB", "MiB", "1e400GiB"}) {
    EXPECT_THROW(parse_bytes(bad, "--m"), UsageError) << bad;
  }
}

TEST(Fraction, PercentOrPlain) {
  EXPECT_DOUBLE_EQ(parse_fraction("10%", "--t"), 0.1);
  EXPECT_DOUBLE_EQ(parse_fraction("0.25", "--t"), 0.25);
  for (const char* bad : {"150%", "0", "1", "x", "%"}) {
    EXPECT_THROW(parse_fraction(bad, "--t"), UsageError) << bad;
  }
}

}  // namespace
}  // namespace overlap
