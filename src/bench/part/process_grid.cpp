#include "bench/part/process_grid.hpp"

#include <stdexcept>

namespace overlap::bench {

ProcessGrid::ProcessGrid(std::vector<int> dims) : dims_(std::move(dims)) {
  for (int d : dims_) {
    if (d < 1) throw std::invalid_argument("process grid: a dimension below 1");
    size_ *= d;
  }
}

std::string ProcessGrid::text() const {
  std::string s;
  for (int d : dims_) s += (s.empty() ? "" : "x") + std::to_string(d);
  return s;
}

// Row-major: the last dimension varies fastest.
std::vector<int> ProcessGrid::coords(int rank) const {
  if (rank < 0 || rank >= size_) throw std::out_of_range("process grid: rank out of range");
  std::vector<int> c(dims_.size());
  for (std::size_t i = dims_.size(); i-- > 0;) {
    c[i] = rank % dims_[i];
    rank /= dims_[i];
  }
  return c;
}

int ProcessGrid::rank_of(const std::vector<int>& c) const {
  int rank = 0;
  for (std::size_t i = 0; i < dims_.size(); ++i) rank = rank * dims_[i] + c[i];
  return rank;
}

int ProcessGrid::neighbour(int rank, int direction) const {
  std::vector<int> c = coords(rank);
  const auto dim = static_cast<std::size_t>(direction / 2);
  c[dim] += direction % 2 == 0 ? -1 : 1;
  if (c[dim] < 0 || c[dim] >= dims_[dim]) return -1;
  return rank_of(c);
}

std::vector<GridFace> ProcessGrid::faces(int rank) const {
  std::vector<GridFace> f;
  for (int d = 0; d < 2 * static_cast<int>(dims_.size()); ++d) {
    const int peer = neighbour(rank, d);
    if (peer >= 0) f.push_back({d, peer});
  }
  return f;
}

std::vector<GridFace> ProcessGrid::upstream(int rank) const {
  std::vector<GridFace> f;
  for (const GridFace& face : faces(rank))
    if (face.direction % 2 == 0) f.push_back(face);
  return f;
}

std::vector<GridFace> ProcessGrid::downstream(int rank) const {
  std::vector<GridFace> f;
  for (const GridFace& face : faces(rank))
    if (face.direction % 2 == 1) f.push_back(face);
  return f;
}

}  // namespace overlap::bench
