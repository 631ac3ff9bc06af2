#include "measure/global_time.hpp"

#include <gtest/gtest.h>

#include <stdexcept>

namespace overlap::measure {
namespace {

TEST(GlobalTime, SpanIsLatestEndMinusEarliestStart) {
  // Rank 2 enters first, rank 0 finishes last: neither rank's own duration is the answer.
  EXPECT_DOUBLE_EQ(collective_span({10.0, 10.5, 9.5}, {12.0, 11.0, 11.5}), 2.5);
}

TEST(GlobalTime, OneRankIsItsOwnDuration) {
  EXPECT_DOUBLE_EQ(collective_span({3.0}, {3.25}), 0.25);
}

TEST(GlobalTime, RejectsMismatchedInput) {
  EXPECT_THROW(collective_span({}, {}), std::invalid_argument);
  EXPECT_THROW(collective_span({1.0, 2.0}, {3.0}), std::invalid_argument);
}

}  // namespace
}  // namespace overlap::measure
