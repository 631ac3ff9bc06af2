// The last-level cache, and a buffer larger than it to write before an iteration that
// must start with a cold cache (partitioned-benchmark paper, sec. 3.4, which used a fixed
// 8 MB; machines differ, so the size is read from the machine).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace overlap::compute {

struct CacheSize {
  std::size_t bytes = 0;
  std::string source;  // "hwloc", "sysconf" or "default (32 MiB)"
};

// The largest data cache hwloc reports; else sysconf's level 3 (then 2); else 32 MiB.
CacheSize last_level_cache();

class CacheFlusher {
 public:
  explicit CacheFlusher(std::size_t bytes) : buffer_(bytes) {}
  // Writes (and reads) the whole buffer, evicting what the cache held.
  void flush();
  std::size_t bytes() const { return buffer_.size(); }

 private:
  std::vector<unsigned char> buffer_;
  unsigned char round_ = 0;
};

}  // namespace overlap::compute
