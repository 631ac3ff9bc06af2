// The grids of `overlap-bench part --pattern`: neighbours are symmetric, edges have none,
// and the layout is MPI_Cart_create's row-major order.
#include "bench/part/process_grid.hpp"

#include <gtest/gtest.h>

namespace overlap::bench {
namespace {

TEST(ProcessGrid, RowMajorLikeCartCreate) {
  const ProcessGrid g({2, 3, 4});
  EXPECT_EQ(g.size(), 24);
  EXPECT_EQ(g.text(), "2x3x4");
  EXPECT_EQ(g.coords(0), (std::vector<int>{0, 0, 0}));
  EXPECT_EQ(g.coords(1), (std::vector<int>{0, 0, 1}));
  EXPECT_EQ(g.coords(4), (std::vector<int>{0, 1, 0}));
  EXPECT_EQ(g.coords(23), (std::vector<int>{1, 2, 3}));
  for (int r = 0; r < g.size(); ++r) EXPECT_EQ(g.rank_of(g.coords(r)), r);
}

TEST(ProcessGrid, HaloFacesAreSymmetricAndStopAtEdges) {
  const ProcessGrid g({2, 3, 4});
  int total = 0;
  for (int r = 0; r < g.size(); ++r) {
    for (const GridFace& f : g.faces(r)) {
      ++total;
      EXPECT_NE(f.peer, r);
      // The neighbour sees this rank across the opposite face.
      EXPECT_EQ(g.neighbour(f.peer, f.direction ^ 1), r) << r << " dir " << f.direction;
    }
  }
  // Faces per dimension: (d - 1) links x other dims x 2 ends.
  EXPECT_EQ(total, 2 * (1 * 12 + 2 * 8 + 3 * 6));
  // The middle of the 3-long dimension at corner x = 0, z = 0: no -x, no -z.
  const int r = g.rank_of({0, 1, 0});
  EXPECT_EQ(g.faces(r), (std::vector<GridFace>{{1, g.rank_of({1, 1, 0})},
                                               {2, g.rank_of({0, 0, 0})},
                                               {3, g.rank_of({0, 2, 0})},
                                               {5, g.rank_of({0, 1, 1})}}));
}

TEST(ProcessGrid, DimsOfOneHaveNoNeighbours) {
  const ProcessGrid g({2, 1, 1});
  EXPECT_EQ(g.faces(0), (std::vector<GridFace>{{1, 1}}));
  EXPECT_EQ(g.faces(1), (std::vector<GridFace>{{0, 0}}));
  const ProcessGrid one({1, 1, 1});
  EXPECT_TRUE(one.faces(0).empty());
}

TEST(ProcessGrid, SweepRunsFromTheFirstCornerToTheLast) {
  const ProcessGrid g({3, 2});  // rows x columns: rank = 2 x row + column
  EXPECT_TRUE(g.upstream(0).empty());
  EXPECT_EQ(g.downstream(0), (std::vector<GridFace>{{1, 2}, {3, 1}}));
  EXPECT_EQ(g.upstream(3), (std::vector<GridFace>{{0, 1}, {2, 2}}));
  EXPECT_EQ(g.downstream(3), (std::vector<GridFace>{{1, 5}}));
  EXPECT_TRUE(g.downstream(5).empty());
  // Every send has its receive: downstream of r lists p iff upstream of p lists r.
  for (int r = 0; r < g.size(); ++r)
    for (const GridFace& f : g.downstream(r)) {
      bool found = false;
      for (const GridFace& u : g.upstream(f.peer))
        found |= u.peer == r && u.direction == (f.direction ^ 1);
      EXPECT_TRUE(found) << r << " -> " << f.peer;
    }
}

TEST(ProcessGrid, RejectsBadInput) {
  EXPECT_THROW(ProcessGrid({2, 0}), std::invalid_argument);
  EXPECT_THROW(ProcessGrid({2, 2}).coords(4), std::out_of_range);
}

}  // namespace
}  // namespace overlap::bench
