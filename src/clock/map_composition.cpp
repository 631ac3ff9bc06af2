#include "clock/map_composition.hpp"

#include <stdexcept>

namespace overlap::clock {
namespace {

const LinearMap& resolve(std::size_t r, const std::vector<int>& parent,
                         const std::vector<LinearMap>& edge, std::vector<LinearMap>& to_root,
                         std::vector<char>& state) {
  if (state[r] == 2) return to_root[r];
  if (state[r] == 1) throw std::invalid_argument("compose_to_root: parent links form a cycle");
  state[r] = 1;
  if (r == 0) {
    to_root[r] = LinearMap::identity();
  } else {
    const int p = parent[r];
    if (p < 0 || static_cast<std::size_t>(p) >= parent.size()) {
      throw std::invalid_argument("compose_to_root: rank without a valid parent");
    }
    to_root[r] =
        compose(resolve(static_cast<std::size_t>(p), parent, edge, to_root, state), edge[r]);
  }
  state[r] = 2;
  return to_root[r];
}

}  // namespace

std::vector<LinearMap> compose_to_root(const std::vector<int>& parent,
                                       const std::vector<LinearMap>& edge) {
  if (parent.size() != edge.size()) throw std::invalid_argument("compose_to_root: size mismatch");
  std::vector<LinearMap> to_root(parent.size());
  std::vector<char> state(parent.size(), 0);
  for (std::size_t r = 0; r < parent.size(); ++r) resolve(r, parent, edge, to_root, state);
  return to_root;
}

}  // namespace overlap::clock
