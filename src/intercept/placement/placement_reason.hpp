// Why overlap-run copies received data although --place move is in effect (placement.hpp,
// move_gate.hpp). Its own header: the runtime holds it and the report names it, without
// placement's dependencies.
#pragma once

#include <cstddef>
#include <string>

namespace overlap::intercept {

// Why no receive is moved any more (the first reason stays).
enum class CopyReason {
  none,      // moving
  library,   // a library that may hold registrations nobody tells of moves is loaded
  exposed,   // MPI was handed memory beyond a call (a window, MPI_Alloc_mem, a persistent
             // or partitioned request)
  refused,   // the kernel does not know MREMAP_DONTUNMAP (Linux 5.7)
  no_query,  // the kernel lacks PROCMAP_QUERY (Linux 6.11), needed to look a mapping up
};

// The report's place_note for a reason other than none; `detail` names the library.
inline std::string copy_reason_text(CopyReason r, const char* detail) {
  switch (r) {
    case CopyReason::none:
      return "";
    case CopyReason::library:
      return std::string(detail != nullptr ? detail : "a library") +
             " is loaded, which may hold memory registrations that are not told of moved "
             "pages: received data was copied from then on";
    case CopyReason::exposed:
      return "MPI was handed memory beyond a call (a window, MPI_Alloc_mem, a persistent or "
             "partitioned request): received data was copied from then on";
    case CopyReason::refused:
      return "the kernel does not know MREMAP_DONTUNMAP (Linux 5.7): received data was copied "
             "from then on";
    case CopyReason::no_query:
      return "the kernel cannot look a mapping up (PROCMAP_QUERY needs Linux 6.11): received "
             "data was copied";
  }
  return "";
}

// Why one receive was copied while moving was still allowed (the report counts them).
enum class ReceiveCopy {
  small,            // under kMoveMinBytes: moving costs a few system calls
  not_anonymous,    // a file or shared mapping, huge pages, a named one ([heap], [stack])
  part_of_mapping,  // neither a whole mapping nor a whole glibc heap block
  attributes,       // the program set madvise advice, mlock, a key or a NUMA policy there
  pinned,           // the process has pinned pages (VmPin): perhaps these
  fault_handler,    // placed from the fault handler (policy caller): no locks allowed
  move_failed,      // the kernel refused this move (e.g. ENOMEM at vm.max_map_count)
  stopped,          // a CopyReason applies
};
inline constexpr std::size_t kReceiveCopyKinds = 8;

inline const char* receive_copy_name(ReceiveCopy c) {
  static const char* const names[kReceiveCopyKinds] = {
      "small",  "not_anonymous", "part_of_mapping", "attributes",
      "pinned", "fault_handler", "move_failed",     "stopped"};
  return names[static_cast<std::size_t>(c)];
}

}  // namespace overlap::intercept
