// UCX's memory hooks, put back where UCX meant them. In its default "bistro" mode UCX
// patches the code of the first munmap/mremap/madvise/mmap its lookup finds, to jump to
// its own hooks; with overlap-run's shim preloaded that is the shim's wrappers, and libc's
// functions stay as they were. Calls glibc makes inside itself (free() of a large block
// unmaps it; realloc remaps) then never reach UCX, whose registration cache could later
// hand out a registration of pages that are gone. mirror_ucx_hooks() writes the same jump
// into libc's functions, as UCX does in a run without overlap-run (docs/overlap-run.md,
// "UCX's memory hooks"). x86-64 only; elsewhere, and where a jump cannot be read or
// written, it says so and changes nothing.
#pragma once

#include <string>

namespace overlap::intercept {

struct HookMirror {
  int displaced = 0;    // wrappers of the shim UCX patched
  int mirrored = 0;     // of those, libc functions now patched the same way
  std::string failure;  // why one could not be mirrored (empty when all were)
};

// After MPI_Init and after the core's own UCX event handlers (which may install UCX's
// hooks). Idempotent.
HookMirror mirror_ucx_hooks();

}  // namespace overlap::intercept
