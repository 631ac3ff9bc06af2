#include "compute/cache_flush.hpp"

#include <hwloc.h>
#include <unistd.h>

#include <algorithm>

namespace overlap::compute {

CacheSize last_level_cache() {
  hwloc_topology_t topo = nullptr;
  std::size_t largest = 0;
  if (hwloc_topology_init(&topo) == 0) {
    if (hwloc_topology_load(topo) == 0) {
      for (int depth = 0; depth < hwloc_topology_get_depth(topo); ++depth) {
        const unsigned n = hwloc_get_nbobjs_by_depth(topo, depth);
        for (unsigned i = 0; i < n; ++i) {
          hwloc_obj_t o = hwloc_get_obj_by_depth(topo, depth, i);
          if (hwloc_obj_type_is_dcache(o->type) && o->attr != nullptr)
            largest = std::max<std::size_t>(largest, o->attr->cache.size);
        }
      }
    }
    hwloc_topology_destroy(topo);
  }
  if (largest > 0) return {largest, "hwloc"};
#ifdef _SC_LEVEL3_CACHE_SIZE
  for (int name : {_SC_LEVEL3_CACHE_SIZE, _SC_LEVEL2_CACHE_SIZE}) {
    const long v = sysconf(name);
    if (v > 0) return {static_cast<std::size_t>(v), "sysconf"};
  }
#endif
  return {std::size_t{32} << 20, "default (32 MiB)"};
}

void CacheFlusher::flush() {
  ++round_;
  unsigned sum = 0;
  for (std::size_t i = 0; i < buffer_.size(); i += 64) {
    sum += buffer_[i];
    buffer_[i] = static_cast<unsigned char>(round_ + sum);
  }
  // Keeps the loop: its result is stored.
  buffer_[0] = static_cast<unsigned char>(sum);
}

}  // namespace overlap::compute
