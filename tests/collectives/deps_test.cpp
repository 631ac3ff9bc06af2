// Deps, the builders' short list of task ids: inline up to kInline ids, on the heap
// beyond, with the vector operations the builders use.
#include "collectives/deps.hpp"

#include <gtest/gtest.h>

#include <utility>
#include <vector>

namespace overlap::collectives {
namespace {

using progress::TaskId;

std::vector<TaskId> ids(const Deps& d) { return {d.begin(), d.end()}; }
std::vector<TaskId> iota(TaskId n) {
  std::vector<TaskId> v;
  for (TaskId i = 0; i < n; ++i) v.push_back(100 + i);
  return v;
}

TEST(Deps, KeepsOrderAcrossTheInlineLimit) {
  for (TaskId n : {0u, 1u, 5u, 6u, 7u, 13u, 40u}) {
    SCOPED_TRACE(n);
    Deps d;
    for (TaskId id : iota(n)) d.push_back(id);
    EXPECT_EQ(d.size(), n);
    EXPECT_EQ(d.empty(), n == 0);
    EXPECT_EQ(ids(d), iota(n));
    if (n > 0) {
      EXPECT_EQ(d.back(), 100 + n - 1);
      EXPECT_EQ(d[0], 100u);
    }
  }
}

TEST(Deps, CopiesAndMovesInlineAndHeapLists) {
  for (TaskId n : {3u, 6u, 9u}) {
    SCOPED_TRACE(n);
    Deps a;
    for (TaskId id : iota(n)) a.push_back(id);
    Deps copy = a;
    copy.push_back(7);  // the original does not see it
    EXPECT_EQ(ids(a), iota(n));
    Deps moved = std::move(copy);
    auto expected = iota(n);
    expected.push_back(7);
    EXPECT_EQ(ids(moved), expected);
    // Assignments over lists of the other kind, both ways.
    Deps small = {1, 2};
    Deps big;
    for (TaskId id : iota(20)) big.push_back(id);
    small = moved;
    EXPECT_EQ(ids(small), expected);
    big = std::move(moved);
    EXPECT_EQ(ids(big), expected);
    Deps heap;
    for (TaskId id : iota(20)) heap.push_back(id);
    heap = Deps{4};
    EXPECT_EQ(ids(heap), std::vector<TaskId>{4});
    heap.push_back(5);
    EXPECT_EQ(ids(heap), (std::vector<TaskId>{4, 5}));
    a = a;  // self-assignment keeps the list
    EXPECT_EQ(ids(a), iota(n));
  }
}

TEST(Deps, AssignsAndAppendsLikeAVector) {
  Deps d = {3, 4};
  d = {9};
  EXPECT_EQ(ids(d), std::vector<TaskId>{9});
  const auto more = iota(10);
  d.append(more.begin(), more.end());
  auto expected = std::vector<TaskId>{9};
  expected.insert(expected.end(), more.begin(), more.end());
  EXPECT_EQ(ids(d), expected);
  d.clear();
  EXPECT_TRUE(d.empty());
  d.push_back(1);
  EXPECT_EQ(ids(d), std::vector<TaskId>{1});
  // A vector of them, resized and filled, as the ring builders keep one per block.
  std::vector<Deps> per_block(5);
  per_block[3] = {1, 2, 3};
  per_block.resize(40);
  EXPECT_EQ(ids(per_block[3]), (std::vector<TaskId>{1, 2, 3}));
  EXPECT_TRUE(per_block[39].empty());
}

}  // namespace
}  // namespace overlap::collectives
