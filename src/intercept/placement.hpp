// Placing a deferred receive's data in the program's pages, which stay no-access until it
// is all there (the program must never see half a message). Two ways (copy by default;
// move with --place move, docs/overlap-run.md says when that is safe):
//  - move: the internal buffer has the same layout within its pages as the program's
//    buffer, so when the message fills whole pages, the buffer's pages are swapped with the
//    program's (two mremap() calls: ~20 us per 2 MiB, against ~0.5-1 ms for the copy);
//  - copy: through /proc/self/mem, which writes regardless of protection.
// Pages are moved only into anonymous private memory and only while MPI holds none of the
// program's memory beyond a call (EXPOSE entries: windows, MPI_Alloc_mem), since a network
// registration made there would still point at the pages moved away. The registration
// caches of single calls are told of each move as their hooks on munmap()/mremap() would
// tell them (UCX's ucm_vm_munmap, Open MPI's opal_mem_hooks_release_hook); the moves are
// raw system calls (UCX's mremap hook drops MREMAP_FIXED's target). docs/overlap-run.md,
// "Placing received data".
#pragma once

#include <cstddef>
#include <cstdint>

#include "intercept/placement_reason.hpp"
#include "intercept/transfer_table.hpp"

namespace overlap::intercept {

// Messages below this are copied: moving has a fixed cost of a few system calls.
inline constexpr std::size_t kMoveMinBytes = std::size_t{64} << 10;

// Where in its internal buffer a receive's data lands: the offset of the program's buffer
// in its first page, so that page boundaries line up.
inline std::size_t landing_offset(const Slot& s) { return s.place_addr - s.page_lo.load(); }

// Puts the `n` received bytes of `s` (at landing_offset in s.recv_bounce) at s.place_addr,
// by moving pages where allowed, else by copying. Called once per receive, before the
// pages are unprotected. After a move, s.recv_bounce holds the program's former pages.
void place_received(Slot& s, std::size_t n);

// At MPI_Init: finds the registration caches' notification functions.
void init_placement();

// From now on received data is copied, for `why` (the first reason given stays).
void stop_moving(CopyReason why);

// The EXPOSE entries' hook (shim_api.h): stop_moving(CopyReason::exposed).
void stop_moving_pages();

}  // namespace overlap::intercept
