// The pool of internal buffers: reuse of a fitting buffer, fresh mappings otherwise, and
// the bounds on what it keeps.
#include "intercept/runtime/bounce_pool.hpp"

#include <gtest/gtest.h>

#include <cstring>
#include <vector>

namespace overlap::intercept {
namespace {

constexpr std::size_t kPage = 4096;

TEST(BouncePool, HandsOutWholeWritablePagesAndReusesAFreedBuffer) {
  BouncePool pool(kPage);
  BouncePool::Buffer a = pool.take(10000);
  ASSERT_NE(a.data, nullptr);
  EXPECT_EQ(a.len, 3 * kPage) << "rounded up to whole pages";
  std::memset(a.data, 0x5a, a.len);  // writable, all of it
  pool.give(a);
  EXPECT_EQ(pool.kept_bytes(), 3 * kPage);
  const BouncePool::Buffer b = pool.take(9000);
  EXPECT_EQ(b.data, a.data) << "a kept buffer that fits is reused";
  EXPECT_EQ(b.len, a.len);
  EXPECT_EQ(pool.kept_bytes(), 0u);
  const BouncePool::Buffer c = pool.take(9000);
  EXPECT_NE(c.data, b.data) << "a buffer in use is never handed out twice";
  pool.give(b);
  pool.give(c);
}

TEST(BouncePool, NeitherTooSmallNorMoreThanTwiceTheSizeIsReused) {
  BouncePool pool(kPage);
  BouncePool::Buffer small = pool.take(kPage);
  BouncePool::Buffer big = pool.take(64 * kPage);
  pool.give(small);
  pool.give(big);
  const BouncePool::Buffer mid = pool.take(8 * kPage);
  EXPECT_NE(mid.data, small.data);
  EXPECT_NE(mid.data, big.data) << "64 pages for an 8-page message would waste memory";
  EXPECT_EQ(mid.len, 8 * kPage);
  const BouncePool::Buffer half = pool.take(32 * kPage);
  EXPECT_EQ(half.data, big.data) << "up to twice the size is reused";
  pool.give(mid);
  pool.give(half);
  const BouncePool::Buffer best = pool.take(kPage);
  EXPECT_EQ(best.data, small.data) << "the smallest that fits";
  pool.give(best);
}

TEST(BouncePool, KeepsAtMostItsCountAndBytes) {
  BouncePool pool(kPage);
  std::vector<BouncePool::Buffer> taken;
  for (std::size_t i = 0; i < BouncePool::kKept + 3; ++i) taken.push_back(pool.take(kPage));
  for (const auto& b : taken) pool.give(b);
  EXPECT_EQ(pool.kept_bytes(), BouncePool::kKept * kPage) << "the rest was unmapped";
  BouncePool big(kPage);
  const BouncePool::Buffer huge = big.take(BouncePool::kKeptBytes + kPage);
  ASSERT_NE(huge.data, nullptr);
  big.give(huge);
  EXPECT_EQ(big.kept_bytes(), 0u) << "more than the byte bound is never kept";
  big.give({});  // a null buffer is ignored
  EXPECT_EQ(big.kept_bytes(), 0u);
}

}  // namespace
}  // namespace overlap::intercept
