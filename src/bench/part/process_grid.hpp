// The process grids of `overlap-bench part --pattern` (docs/part-benchmark.md): ranks laid
// out row-major on the dimensions MPI_Dims_create chose (the order MPI_Cart_create uses
// without reordering), not periodic. Halo3D: a rank's up to 6 face neighbours on a 3-D
// grid; Sweep3D: its upstream (west, north) and downstream (east, south) neighbours on a
// 2-D grid, the wavefront starting at rank 0's corner. Pure: no MPI.
#pragma once

#include <string>
#include <vector>

namespace overlap::bench {

// One face of a rank: the neighbour across it and the direction it lies in. Directions
// are 2 x dimension + (0 toward lower coordinates, 1 toward higher); the neighbour sees
// this face in the opposite direction (`direction ^ 1`).
struct GridFace {
  int direction = 0;
  int peer = 0;
  bool operator==(const GridFace&) const = default;
};

class ProcessGrid {
 public:
  // dims: every entry >= 1; their product is the number of ranks.
  explicit ProcessGrid(std::vector<int> dims);

  int size() const { return size_; }
  const std::vector<int>& dims() const { return dims_; }
  std::string text() const;  // "2x2x1"
  std::vector<int> coords(int rank) const;
  int rank_of(const std::vector<int>& coords) const;
  // The rank across `direction`, or -1 at the grid's edge (not periodic).
  int neighbour(int rank, int direction) const;
  // Every face with a neighbour, in direction order.
  std::vector<GridFace> faces(int rank) const;
  // Sweep (2-D grid): faces toward lower coordinates (west, north) and higher ones.
  std::vector<GridFace> upstream(int rank) const;
  std::vector<GridFace> downstream(int rank) const;

 private:
  std::vector<int> dims_;
  int size_ = 1;
};

}  // namespace overlap::bench
