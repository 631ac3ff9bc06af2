#include "bench/part/part_noise.hpp"

#include <algorithm>

namespace overlap::bench {

std::vector<double> draw_compute(const PartConfig& c, int parts, std::mt19937_64& rng) {
  std::vector<double> t(static_cast<std::size_t>(parts), c.compute_s);
  const double extra = c.compute_s * c.noise_fraction;
  switch (c.noise) {
    case NoiseModel::none:
      break;
    case NoiseModel::single:
      t[rng() % t.size()] += extra;
      break;
    case NoiseModel::uniform:
      for (double& x : t) x += std::uniform_real_distribution<double>(0, extra)(rng);
      break;
    case NoiseModel::gaussian:
      for (double& x : t)
        x = std::max(0.0, std::normal_distribution<double>(c.compute_s, extra)(rng));
      break;
  }
  return t;
}

}  // namespace overlap::bench
