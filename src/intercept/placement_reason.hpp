// Why overlap-run copies received data although --place move was asked (placement.hpp).
// Its own header: the runtime holds it and the report names it, without placement's
// dependencies.
#pragma once

namespace overlap::intercept {

enum class CopyReason {
  none,       // moving
  libfabric,  // loaded at MPI_Init: its memory monitors are not told of moves
  exposed,    // MPI was handed memory beyond a call (a window, MPI_Alloc_mem)
  refused,    // the kernel refused a move (MREMAP_DONTUNMAP needs Linux 5.7)
};

// The report's place_note for a reason other than none.
inline const char* copy_reason_text(CopyReason r) {
  switch (r) {
    case CopyReason::none:
      return "";
    case CopyReason::libfabric:
      return "libfabric is loaded, whose memory monitors are not told of moved pages: received "
             "data was copied";
    case CopyReason::exposed:
      return "MPI was handed memory beyond a call (a window or MPI_Alloc_mem): received data was "
             "copied from then on";
    case CopyReason::refused:
      return "the kernel refused to move pages (MREMAP_DONTUNMAP needs Linux 5.7): received data "
             "was copied from then on";
  }
  return "";
}

}  // namespace overlap::intercept
