// Placing a deferred receive's data in the program's pages, which stay no-access until it
// is all there (the program must never see half a message). Two ways:
//  - move (the default, where move_gate.hpp allows it): the internal buffer has the same
//    layout within its pages as the program's buffer, so when the message fills them, the
//    buffer's pages are swapped with the program's (two mremap() calls: ~20 us per 2 MiB,
//    against ~0.5-1 ms for the copy);
//  - copy: through /proc/self/mem, which writes regardless of protection.
// The registration caches are told of each move as their hooks on munmap()/mremap() would
// tell them (MoveGate::announce); the moves are raw system calls (UCX's mremap hook drops
// MREMAP_FIXED's target). docs/overlap-run.md, "Placing received data".
#pragma once

#include <cstddef>
#include <cstdint>

#include "intercept/placement/placement_reason.hpp"
#include "intercept/runtime/transfer_table.hpp"

namespace overlap::intercept {

// Messages below this are copied: moving has a fixed cost of a few system calls and the
// gate's checks (reading /proc/self/status: ~20 us), which a copy of 256 KiB matches.
inline constexpr std::size_t kMoveMinBytes = std::size_t{256} << 10;

// Where in its internal buffer a receive's data lands: the offset of the program's buffer
// in its first page, so that page boundaries line up.
inline std::size_t landing_offset(const Slot& s) { return s.place_addr - s.page_lo.load(); }

// Puts the `n` received bytes of `s` (at landing_offset in s.recv_bounce) at s.place_addr,
// by moving pages where allowed, else by copying. Called once per receive, before the
// pages are unprotected. After a move, s.recv_bounce holds the program's former pages.
void place_received(Slot& s, std::size_t n);

// The program's bytes [from, from + n) into `to`, whatever their protection (through
// /proc/self/mem); false when the kernel refused.
bool read_program_memory(char* to, std::uintptr_t from, std::size_t n);

// At MPI_Init: MoveGate::init().
void init_placement();

// From now on received data is copied, for `why` (the first reason given stays); `detail`
// a static text (the library).
void stop_moving(CopyReason why, const char* detail = nullptr);

// The EXPOSE entries' hook (shim_api.h): stop_moving(CopyReason::exposed).
void stop_moving_pages();

}  // namespace overlap::intercept
