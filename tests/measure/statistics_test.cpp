#include "measure/statistics.hpp"

#include <gtest/gtest.h>

#include <limits>
#include <stdexcept>
#include <vector>

namespace overlap::measure {
namespace {

TEST(Median, OddCountIsTheMiddleOfTheSortedValues) {
  EXPECT_EQ(median({3.0, 1.0, 2.0}), 2.0);
  EXPECT_EQ(median({5.0, -1.0, 9.0, 7.0, 0.0}), 5.0);
  EXPECT_EQ(median({42.0}), 42.0);
}

TEST(Median, EvenCountAveragesTheTwoMiddleValues) {
  EXPECT_EQ(median({4.0, 1.0, 3.0, 2.0}), 2.5);
  EXPECT_EQ(median({10.0, 0.0}), 5.0);
  EXPECT_EQ(median({1.0, 1.0, 100.0, 100.0}), 50.5);
}

TEST(Median, LeavesTheCallersValuesAlone) {
  const std::vector<double> values{3.0, 1.0, 2.0};
  EXPECT_EQ(median(values), 2.0);
  EXPECT_EQ(values, (std::vector<double>{3.0, 1.0, 2.0}));
}

TEST(Quantile, EndsAreMinimumAndMaximum) {
  const std::vector<double> v{7.0, -2.0, 4.0, 11.0};
  EXPECT_EQ(quantile(v, 0.0), -2.0);
  EXPECT_EQ(quantile(v, 1.0), 11.0);
}

TEST(Quantile, InterpolatesLinearlyBetweenOrderStatistics) {
  // Sorted 0, 10, 20, 30, 40: position q * (n - 1) on the index axis.
  const std::vector<double> v{40.0, 0.0, 30.0, 10.0, 20.0};
  EXPECT_DOUBLE_EQ(quantile(v, 0.1), 4.0);    // pos 0.4
  EXPECT_DOUBLE_EQ(quantile(v, 0.25), 10.0);  // pos 1.0, exactly on a value
  EXPECT_DOUBLE_EQ(quantile(v, 0.3), 12.0);   // pos 1.2
  EXPECT_DOUBLE_EQ(quantile(v, 0.9), 36.0);   // pos 3.6
  EXPECT_DOUBLE_EQ(quantile({1.0, 2.0}, 0.75), 1.75);
}

TEST(Quantile, DuplicatesAndSingleValue) {
  EXPECT_EQ(quantile({2.0, 2.0, 2.0}, 0.37), 2.0);
  EXPECT_EQ(quantile({5.0}, 0.0), 5.0);
  EXPECT_EQ(quantile({5.0}, 0.8), 5.0);
  EXPECT_EQ(quantile({5.0}, 1.0), 5.0);
}

TEST(Quantile, IsMonotoneInQ) {
  const std::vector<double> v{0.3, 9.1, -4.0, 2.2, 2.2, 7.5, 1.0};
  double previous = quantile(v, 0.0);
  for (int i = 1; i <= 100; ++i) {
    const double q = quantile(v, i / 100.0);
    EXPECT_GE(q, previous) << "q = " << i / 100.0;
    previous = q;
  }
}

TEST(Quantile, EmptyThrows) {
  EXPECT_THROW(quantile({}, 0.5), std::invalid_argument);
  EXPECT_THROW(median({}), std::invalid_argument);
}

TEST(Quantile, QOutsideUnitIntervalThrows) {
  EXPECT_THROW(quantile({1.0}, -0.01), std::invalid_argument);
  EXPECT_THROW(quantile({1.0}, 1.01), std::invalid_argument);
  EXPECT_THROW(quantile({1.0}, std::numeric_limits<double>::quiet_NaN()), std::invalid_argument);
}

}  // namespace
}  // namespace overlap::measure
