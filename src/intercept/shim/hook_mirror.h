/* UCX's memory hooks, put back where UCX meant them (part of the shim; docs/overlap-run.md,
 * "UCX's memory hooks"). In its default "bistro" mode UCX patches the code of the first
 * munmap/mremap/madvise/mmap its lookup finds, to jump to its own hooks; with the shim
 * preloaded those are the shim's wrappers, and libc's functions stay as they were. Calls
 * glibc makes inside itself (free() of a large block unmaps it, realloc() remaps it) then
 * never reach UCX, whose registration cache could later hand out a registration of pages
 * that are gone. ovx_mirror_memory_hooks() writes the same jump into libc's functions, as
 * UCX does in a run without the shim. x86-64 only; elsewhere, and where a jump cannot be
 * read or written, it records why and changes nothing.
 *
 * When: UCX changes the protection of the code it patches back to executable with
 * mprotect(), which the shim wraps; the wrapper calls this when such a change covers one
 * of its wrappers, so hooks installed at any time are mirrored, with or without the core
 * (--off). MPI_Init calls it once more, in case something patched without mprotect(). */
#ifndef OVERLAP_INTERCEPT_HOOK_MIRROR_H
#define OVERLAP_INTERCEPT_HOOK_MIRROR_H

#ifdef __cplusplus
extern "C" {
#endif

struct ovx_hook_mirror {
  int displaced;    /* the shim's wrappers whose code was patched */
  int mirrored;     /* of those, libc functions now patched the same way */
  char failure[96]; /* why one could not be mirrored; empty when all were */
};

/* The four wrappers UCX's bistro may patch, in this order: munmap, mremap, madvise, mmap. */
#define OVX_HOOKABLE 4

/* Checks the wrappers (their first bytes in memory against the shim's file) and mirrors
 * what was patched. Idempotent, serialised; not from a signal handler. Warns once on
 * stderr (rank 0 or unknown) when a hook could not be mirrored on a node with a device
 * UCX registers memory with (RDMA, knem, xpmem), where that can corrupt data. */
void ovx_mirror_memory_hooks(void* const wrappers[OVX_HOOKABLE]);

/* The state after the last check. */
struct ovx_hook_mirror ovx_memory_hooks(void);

/* 1 when [addr, addr + len) holds the start of one of the wrappers. */
int ovx_covers_wrapper(void* const wrappers[OVX_HOOKABLE], const void* addr, unsigned long len);

#ifdef __cplusplus
}
#endif

#endif
