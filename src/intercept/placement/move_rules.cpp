#include "intercept/placement/move_rules.hpp"

#include <array>

namespace overlap::intercept {

std::optional<ReceiveCopy> range_verdict(const Mapping& m, std::uintptr_t lo, std::uintptr_t hi,
                                         bool known_whole, std::size_t base_page) {
  if (m.shared || m.file || m.named || m.page != base_page) return ReceiveCopy::not_anonymous;
  if (lo < m.lo || m.hi < hi) return ReceiveCopy::part_of_mapping;
  return known_whole ? std::nullopt : std::optional(ReceiveCopy::part_of_mapping);
}

std::string_view unsafe_library(std::string_view path, bool rdma_device) {
  const std::size_t slash = path.rfind('/');
  const std::string_view name = slash == std::string_view::npos ? path : path.substr(slash + 1);
  // Libraries that pin or register memory with a device and keep it past a call, without
  // hooks anybody could tell: the network ones MPI may use besides UCX and Open MPI's
  // own (libfabric's monitors see only libc's munmap/mremap), GPU runtimes (host memory
  // registration), io_uring (fixed buffers).
  static constexpr std::array<std::string_view, 10> always = {
      "libfabric.so", "libpsm2.so",     "libpsm_infinipath.so", "libugni.so",      "libcuda.so",
      "libcudart.so", "libamdhip64.so", "libhsa-runtime64.so",  "libze_loader.so", "liburing.so"};
  for (std::string_view lib : always) {
    if (name.substr(0, lib.size()) == lib) return lib;
  }
  // Verbs register only where an RDMA device exists; there, besides UCX's and Open MPI's
  // told caches, the program itself or another library may hold regions.
  if (rdma_device && name.substr(0, 13) == "libibverbs.so") return "libibverbs.so";
  return {};
}

}  // namespace overlap::intercept
