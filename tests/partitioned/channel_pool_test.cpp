#include "partitioned/channel_pool.hpp"

#include <gtest/gtest.h>

#include <set>

namespace overlap::partitioned {
namespace {

TEST(ChannelPool, LiveChannelsAreDistinctUntilAllAreTaken) {
  ChannelPool pool;
  std::set<std::uint32_t> got;
  for (int i = 0; i < 5; ++i) {
    auto c = pool.acquire(5);
    ASSERT_TRUE(c.has_value());
    EXPECT_LT(*c, 5u);
    got.insert(*c);
  }
  EXPECT_EQ(got.size(), 5u);
  EXPECT_FALSE(pool.acquire(5).has_value());
}

TEST(ChannelPool, ReleasedChannelIsReusedOnlyAfterTheOtherFreeOnes) {
  ChannelPool pool;
  const auto a = pool.acquire(4);  // 0
  const auto b = pool.acquire(4);  // 1
  ASSERT_TRUE(a && b);
  pool.release(*a);
  // 2 and 3 are free and were never used: they come before the released 0.
  EXPECT_EQ(pool.acquire(4), std::optional<std::uint32_t>(2));
  EXPECT_EQ(pool.acquire(4), std::optional<std::uint32_t>(3));
  EXPECT_EQ(pool.acquire(4), a);
  EXPECT_FALSE(pool.acquire(4).has_value());  // 1 is still live
  pool.release(*b);
  EXPECT_EQ(pool.acquire(4), b);
}

TEST(ChannelPool, AChannelHeldForLongIsNeverHandedOutTwice) {
  ChannelPool pool;
  const auto held = pool.acquire(3);
  ASSERT_TRUE(held);
  for (int i = 0; i < 20; ++i) {
    auto c = pool.acquire(3);
    ASSERT_TRUE(c.has_value());
    EXPECT_NE(*c, *held);
    pool.release(*c);
  }
}

}  // namespace
}  // namespace overlap::partitioned
