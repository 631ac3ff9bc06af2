// Wire channels of the process's live partitioned send requests. Two live requests never
// share one (their messages to one peer would match in posting order, not by request); a
// released one is reused only after every other free one was (round-robin from where the
// last one was handed out), so a request freed long ago cannot meet its successor's
// messages either (docs/liboverlap.md, "Partitioned point-to-point").
#pragma once

#include <cstdint>
#include <mutex>
#include <optional>
#include <vector>

namespace overlap::partitioned {

class ChannelPool {
 public:
  // A free channel in [0, channels), or nothing when all are taken.
  std::optional<std::uint32_t> acquire(std::uint32_t channels);
  void release(std::uint32_t channel);

 private:
  std::mutex mu_;
  std::vector<bool> used_;
  std::uint32_t cursor_ = 0;
};

}  // namespace overlap::partitioned
