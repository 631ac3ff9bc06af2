#include "intercept/runtime/bounce_pool.hpp"

#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace overlap::intercept {

BouncePool::BouncePool() : page_(static_cast<std::size_t>(sysconf(_SC_PAGESIZE))) {}

BouncePool::Buffer BouncePool::take(std::size_t bytes) {
  const std::size_t need = (bytes + page_ - 1) / page_ * page_;
  {
    std::lock_guard<std::mutex> lock(mu_);
    Buffer* best = nullptr;
    for (Buffer& b : kept_) {
      if (b.data == nullptr || b.len < need || b.len / 2 > need) continue;
      if (best == nullptr || b.len < best->len) best = &b;
    }
    if (best != nullptr) {
      const Buffer out = *best;
      *best = Buffer{};
      kept_bytes_ -= out.len;
      return out;
    }
  }
  void* p = mmap(nullptr, need, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) return {};
  return {p, need};
}

void BouncePool::give(Buffer b) {
  if (b.data == nullptr) return;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (kept_bytes_ + b.len <= kKeptBytes) {
      for (Buffer& place : kept_) {
        if (place.data != nullptr) continue;
        place = b;
        kept_bytes_ += b.len;
        return;
      }
    }
  }
  // Through libc, not the raw system call: MPI may have registered the buffer with the
  // network, and its registration cache learns of unmappings from its hooks on munmap().
  // Our own munmap() wrapper settles nothing here (no transfer's data lies in it).
  munmap(b.data, b.len);
}

std::size_t BouncePool::kept_bytes() const {
  std::lock_guard<std::mutex> lock(mu_);
  return kept_bytes_;
}

}  // namespace overlap::intercept
