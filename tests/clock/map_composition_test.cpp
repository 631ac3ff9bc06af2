#include "clock/map_composition.hpp"

#include <gtest/gtest.h>

#include <random>
#include <stdexcept>
#include <vector>

#include "clock/sync_schedule.hpp"

namespace overlap::clock {
namespace {

void expect_same_map(const LinearMap& a, const LinearMap& b, double tol) {
  for (double x : {-50.0, 0.0, 3.0, 1e3, 1e5}) EXPECT_NEAR(a(x), b(x), tol) << "x = " << x;
}

// Distinct, non-trivial lines so that a wrong order or a skipped hop shows.
std::vector<LinearMap> some_edges(std::size_t n, unsigned seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> ref(-10.0, 10.0);
  std::uniform_real_distribution<double> slope(0.5, 2.0);
  std::vector<LinearMap> edges(n);
  for (LinearMap& e : edges) e = {ref(rng), ref(rng), slope(rng)};
  return edges;
}

TEST(ComposeToRoot, HandBuiltTreeEqualsExplicitComposition) {
  // 1 -> 0, 2 -> 0, 3 -> 1, 4 -> 3: rank 4 is three hops from the root.
  const std::vector<int> parent{-1, 0, 0, 1, 3};
  const auto e = some_edges(5, 1);
  const auto to_root = compose_to_root(parent, e);
  ASSERT_EQ(to_root.size(), 5u);
  expect_same_map(to_root[0], LinearMap::identity(), 0);
  expect_same_map(to_root[1], e[1], 1e-9);
  expect_same_map(to_root[2], e[2], 1e-9);
  expect_same_map(to_root[3], compose(e[1], e[3]), 1e-9);
  expect_same_map(to_root[4], compose(e[1], compose(e[3], e[4])), 1e-9);
  // Spelled out pointwise: rank 4's clock -> 3's -> 1's -> 0's.
  for (double x : {-2.0, 0.0, 7.0}) EXPECT_NEAR(to_root[4](x), e[1](e[3](e[4](x))), 1e-9);
}

TEST(ComposeToRoot, ParentsMayHaveHigherRanksThanChildren) {
  // 0 <- 3 <- 1 <- 2: resolution order must not assume parent < child.
  const std::vector<int> parent{-1, 3, 1, 0};
  const auto e = some_edges(4, 2);
  const auto to_root = compose_to_root(parent, e);
  expect_same_map(to_root[3], e[3], 1e-9);
  expect_same_map(to_root[1], compose(e[3], e[1]), 1e-9);
  expect_same_map(to_root[2], compose(e[3], compose(e[1], e[2])), 1e-9);
}

TEST(ComposeToRoot, RootEdgeIsIgnored) {
  std::vector<LinearMap> e = some_edges(3, 3);
  e[0] = {100.0, -7.0, 3.0};  // garbage: rank 0 is the global clock by definition
  const auto to_root = compose_to_root({-1, 0, 1}, e);
  expect_same_map(to_root[0], LinearMap::identity(), 0);
  expect_same_map(to_root[2], compose(e[1], e[2]), 1e-9);
}

TEST(ComposeToRoot, MatchesChainsOfRealSchedules) {
  for (SyncScheme scheme : {SyncScheme::log, SyncScheme::linear}) {
    for (int p : {1, 2, 5, 16, 33}) {
      const SyncSchedule s = SyncSchedule::make(scheme, p);
      const auto e = some_edges(static_cast<std::size_t>(p), static_cast<unsigned>(p));
      const auto to_root = compose_to_root(s.parent, e);
      for (int r = 0; r < p; ++r) {
        // Walk the chain by hand, applying edges from the rank upwards.
        for (double x : {-1.0, 4.0}) {
          double y = x;
          for (int at = r; at != 0; at = s.parent[static_cast<std::size_t>(at)]) {
            y = e[static_cast<std::size_t>(at)](y);
          }
          EXPECT_NEAR(to_root[static_cast<std::size_t>(r)](x), y, 1e-9)
              << to_string(scheme) << " P = " << p << " rank " << r;
        }
      }
    }
  }
}

TEST(ComposeToRoot, CyclesThrow) {
  EXPECT_THROW(compose_to_root({-1, 2, 1}, some_edges(3, 4)), std::invalid_argument);
  EXPECT_THROW(compose_to_root({-1, 1}, some_edges(2, 4)), std::invalid_argument);  // self
  EXPECT_THROW(compose_to_root({-1, 0, 3, 4, 2}, some_edges(5, 4)), std::invalid_argument);
}

TEST(ComposeToRoot, MissingOrInvalidParentThrows) {
  EXPECT_THROW(compose_to_root({-1, -1}, some_edges(2, 5)), std::invalid_argument);
  EXPECT_THROW(compose_to_root({-1, 0, 5}, some_edges(3, 5)), std::invalid_argument);
  EXPECT_THROW(compose_to_root({-1, 0, -7}, some_edges(3, 5)), std::invalid_argument);
}

TEST(ComposeToRoot, SizeMismatchThrows) {
  EXPECT_THROW(compose_to_root({-1, 0, 0}, some_edges(2, 6)), std::invalid_argument);
  EXPECT_THROW(compose_to_root({-1}, some_edges(2, 6)), std::invalid_argument);
}

TEST(ComposeToRoot, EmptyAndSingleRank) {
  EXPECT_TRUE(compose_to_root({}, {}).empty());
  const auto one = compose_to_root({-1}, some_edges(1, 7));
  ASSERT_EQ(one.size(), 1u);
  expect_same_map(one[0], LinearMap::identity(), 0);
}

}  // namespace
}  // namespace overlap::clock
