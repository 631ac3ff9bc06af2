#include "partitioned/channel_pool.hpp"

namespace overlap::partitioned {

std::optional<std::uint32_t> ChannelPool::acquire(std::uint32_t channels) {
  std::lock_guard lock(mu_);
  if (used_.size() < channels) used_.resize(channels, false);
  for (std::uint32_t k = 0; k < channels; ++k) {
    const std::uint32_t c = (cursor_ + k) % channels;
    if (used_[c]) continue;
    used_[c] = true;
    cursor_ = (c + 1) % channels;
    return c;
  }
  return std::nullopt;
}

void ChannelPool::release(std::uint32_t channel) {
  std::lock_guard lock(mu_);
  if (channel < used_.size()) used_[channel] = false;
}

}  // namespace overlap::partitioned
