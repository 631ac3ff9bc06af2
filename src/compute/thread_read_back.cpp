#include "compute/thread_read_back.hpp"

#include <hwloc.h>
#include <hwloc/linux.h>
#include <omp.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "compute/thread_binding.hpp"

namespace overlap::compute {
namespace {

std::string first_line(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  return line;
}

std::string proc_cpus(int tid) {
  std::ifstream in("/proc/self/task/" + std::to_string(tid) + "/status");
  const std::string key = "Cpus_allowed_list:";
  for (std::string line; std::getline(in, line);) {
    if (line.rfind(key, 0) != 0) continue;
    const auto start = line.find_first_not_of(" \t", key.size());
    return start == std::string::npos ? "" : line.substr(start);
  }
  return "";
}

// One loaded topology for every reading of a call (loading it is the costly part).
class Hwloc {
 public:
  Hwloc() {
    if (hwloc_topology_init(&topo_) == 0 && hwloc_topology_load(topo_) != 0) {
      hwloc_topology_destroy(topo_);
      topo_ = nullptr;
    }
  }
  ~Hwloc() {
    if (topo_ != nullptr) hwloc_topology_destroy(topo_);
  }
  Hwloc(const Hwloc&) = delete;
  Hwloc& operator=(const Hwloc&) = delete;

  // Read-only on the loaded topology: safe from several threads at once.
  std::string cpus(int tid) const {
    std::string out;
    if (topo_ == nullptr) return out;
    hwloc_bitmap_t set = hwloc_bitmap_alloc();
    char* text = nullptr;
    if (set != nullptr && hwloc_linux_get_tid_cpubind(topo_, tid, set) == 0 &&
        hwloc_bitmap_list_asprintf(&text, set) >= 0 && text != nullptr) {
      out = text;
    }
    std::free(text);
    hwloc_bitmap_free(set);
    return out;
  }

 private:
  hwloc_topology_t topo_ = nullptr;
};

}  // namespace

std::vector<CpusReadBack> read_back_cpus(const std::vector<int>& tids) {
  const Hwloc hwloc;
  std::vector<CpusReadBack> out;
  for (int tid : tids) out.push_back({proc_cpus(tid), hwloc.cpus(tid)});
  return out;
}

std::vector<int> threads_named(std::string_view name) {
  std::vector<int> tids;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator("/proc/self/task", ec)) {
    const std::string id = entry.path().filename().string();
    if (first_line(entry.path() / "comm") == name) tids.push_back(std::atoi(id.c_str()));
  }
  std::sort(tids.begin(), tids.end());
  return tids;
}

std::vector<CpusReadBack> read_back_computation(const std::vector<std::vector<int>>& thread_pus) {
  std::vector<CpusReadBack> out(thread_pus.size());
  if (thread_pus.empty()) return out;
  const Hwloc hwloc;
#pragma omp parallel num_threads(static_cast <int>(thread_pus.size()))
  {
    const auto id = static_cast<std::size_t>(omp_get_thread_num());
    if (id < thread_pus.size()) {
      ThreadBinding bound(thread_pus[id]);
      const int tid = static_cast<int>(syscall(SYS_gettid));
      out[id] = {proc_cpus(tid), hwloc.cpus(tid)};
    }
  }
  return out;
}

}  // namespace overlap::compute
