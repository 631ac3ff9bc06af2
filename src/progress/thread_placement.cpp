#include "progress/thread_placement.hpp"

#include <hwloc.h>

#include <cstdlib>
#include <memory>
#include <string>

namespace overlap::progress {
namespace {

// hwloc objects with their destroy functions, so every early return cleans up.
struct Topology {
  hwloc_topology_t topo = nullptr;
  Topology() {
    if (hwloc_topology_init(&topo) != 0 || hwloc_topology_load(topo) != 0) topo = nullptr;
  }
  ~Topology() {
    if (topo != nullptr) hwloc_topology_destroy(topo);
  }
};
struct Bitmap {
  hwloc_bitmap_t map = hwloc_bitmap_alloc();
  ~Bitmap() { hwloc_bitmap_free(map); }
};

// The machine's topology and the PUs this process may run on; "" or why not.
std::string read_binding(const Topology& t, Bitmap& allowed) {
  if (t.topo == nullptr) return "hwloc could not load the machine topology";
  if (hwloc_get_cpubind(t.topo, allowed.map, HWLOC_CPUBIND_PROCESS) != 0 &&
      hwloc_get_cpubind(t.topo, allowed.map, HWLOC_CPUBIND_THREAD) != 0) {
    return "hwloc could not read the process's CPU binding";
  }
  return "";
}

}  // namespace

CoreChoice bind_this_thread_to_core(int index) {
  CoreChoice c;
  Topology t;
  Bitmap allowed;
  c.error = read_binding(t, allowed);
  if (!c.error.empty()) return c;
  // Cores whose PUs are all allowed to this process.
  const int n = hwloc_get_nbobjs_by_type(t.topo, HWLOC_OBJ_CORE);
  std::unique_ptr<hwloc_obj_t[]> mine(new hwloc_obj_t[static_cast<std::size_t>(n > 0 ? n : 1)]);
  int count = 0;
  for (int i = 0; i < n; ++i) {
    hwloc_obj_t core = hwloc_get_obj_by_type(t.topo, HWLOC_OBJ_CORE, static_cast<unsigned>(i));
    if (hwloc_bitmap_isincluded(core->cpuset, allowed.map))
      mine[static_cast<std::size_t>(count++)] = core;
  }
  c.cores = count;
  if (count == 0) {
    c.error = "the process's CPU set contains no whole core";
    return c;
  }
  const int pick = index < 0 ? count - 1 : index;
  if (pick >= count) {
    c.error = "OVERLAP_PROGRESS_CORE=" + std::to_string(index) + " but the process has " +
              std::to_string(count) + " core(s) (allowed: 0.." + std::to_string(count - 1) + ")";
    return c;
  }
  hwloc_obj_t core = mine[static_cast<std::size_t>(pick)];
  if (hwloc_set_cpubind(t.topo, core->cpuset, HWLOC_CPUBIND_THREAD) != 0) {
    c.error =
        "hwloc could not bind the progress thread to core " + std::to_string(core->logical_index);
    return c;
  }
  c.core = static_cast<int>(core->logical_index);
  return c;
}

std::string exclude_core_from_this_thread(int core_index) {
  Topology t;
  if (t.topo == nullptr) return "hwloc could not load the machine topology";
  hwloc_obj_t core =
      hwloc_get_obj_by_type(t.topo, HWLOC_OBJ_CORE, static_cast<unsigned>(core_index));
  if (core == nullptr) return "no core with logical index " + std::to_string(core_index);
  Bitmap mine;
  if (hwloc_get_cpubind(t.topo, mine.map, HWLOC_CPUBIND_THREAD) != 0)
    return "hwloc could not read the thread's CPU binding";
  hwloc_bitmap_andnot(mine.map, mine.map, core->cpuset);
  if (hwloc_bitmap_iszero(mine.map))
    return "the progress core is the only core this thread may use";
  if (hwloc_set_cpubind(t.topo, mine.map, HWLOC_CPUBIND_THREAD) != 0)
    return "hwloc could not narrow the thread's CPU binding";
  return "";
}

}  // namespace overlap::progress

namespace overlap::progress {

ProcessCores process_cores() {
  ProcessCores r;
  Topology t;
  Bitmap allowed;
  r.error = read_binding(t, allowed);
  if (!r.error.empty()) return r;
  const int n = hwloc_get_nbobjs_by_type(t.topo, HWLOC_OBJ_CORE);
  for (int i = 0; i < n; ++i) {
    hwloc_obj_t core = hwloc_get_obj_by_type(t.topo, HWLOC_OBJ_CORE, static_cast<unsigned>(i));
    ++r.machine_cores;
    if (hwloc_bitmap_isincluded(core->cpuset, allowed.map)) ++r.cores;
  }
  char* text = nullptr;
  if (hwloc_bitmap_list_asprintf(&text, allowed.map) >= 0 && text != nullptr) {
    r.cpus = text;
    std::free(text);
  }
  return r;
}

}  // namespace overlap::progress
