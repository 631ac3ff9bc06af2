// The internal buffers of deferred transfers (a receive's landing area, the copy of a
// send whose end pages hold other data), kept for reuse. A fresh mapping costs an mmap(),
// a page fault per page when MPI first writes it, and an munmap() with a TLB shootdown
// when freed: about half a millisecond per 2 MiB, on the critical path of every deferred
// receive. So up to kKept freed buffers (kKeptBytes together) are kept and handed out
// again; a program that receives the same sizes over and over maps each once.
#pragma once

#include <array>
#include <cstddef>
#include <mutex>

namespace overlap::intercept {

class BouncePool {
 public:
  static constexpr std::size_t kKept = 8;
  static constexpr std::size_t kKeptBytes = std::size_t{32} << 20;

  struct Buffer {
    void* data = nullptr;
    std::size_t len = 0;  // mapped length (whole pages, at least what was asked for)
  };

  BouncePool();  // the system's page size
  explicit BouncePool(std::size_t page) : page_(page) {}
  BouncePool(const BouncePool&) = delete;
  BouncePool& operator=(const BouncePool&) = delete;

  // A kept buffer of at least `bytes` and at most twice that, else a new mapping;
  // data == nullptr when the system has no memory for it.
  Buffer take(std::size_t bytes);
  // Keeps `b` for reuse, or unmaps it when the pool is full. Null buffers are ignored.
  void give(Buffer b);
  std::size_t kept_bytes() const;

 private:
  std::size_t page_;
  mutable std::mutex mu_;
  std::array<Buffer, kKept> kept_{};  // guarded by mu_; data == nullptr: an empty place
  std::size_t kept_bytes_ = 0;        // guarded by mu_
};

}  // namespace overlap::intercept
