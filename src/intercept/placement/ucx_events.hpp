// UCX's memory events, followed by the interception core. UCX (MPICH's ch4:ucx, Open
// MPI's pml ucx) takes over munmap/mremap/madvise/mmap with its own hooks, which make the
// system call themselves, so the shim's wrappers of those are not reached: their work
// (settling transfers before an unmapping, the records of mappings and lasting advice the
// move gate reads) is done from UCX's event handlers instead. And where UCX's hooks landed
// on the shim's wrappers rather than libc's, they are put on libc's too
// (hook_mirror.h; docs/overlap-run.md, "UCX's memory hooks").
#pragma once

namespace overlap::intercept {

// Right after MPI_Init, whether interception then starts or not (the engine may be
// unavailable): registers the handlers where UCX is loaded and puts its hooks in place.
// Nothing where UCX is not loaded. (Under --off the core is not loaded at all.)
void follow_ucx_memory_events();

}  // namespace overlap::intercept
