// A program's own nonblocking collectives routed to liboverlap's task-graph collectives, so
// that the engine progresses them while the program computes (docs/overlap-run.md,
// "Nonblocking collectives"). The nine liboverlap implements: MPI_Ibarrier, _Ibcast,
// _Ireduce, _Iallreduce, _Ireduce_scatter_block, _Igather, _Iscatter, _Iallgather,
// _Ialltoall. The program gets liboverlap's request, which is a real MPI request (a
// generalized request): MPI's Wait/Test families take it in any mix with its own.
// The blocking forms of all but the barrier are routed by the same rules and then deferred
// where this rank's buffers allow (collective_deferral.hpp, "Blocking collectives").
//
// Every rank must route the same calls, or a collective would be split between liboverlap
// and MPI and hang. So the decision uses only what MPI requires to be the same on every
// rank of the collective: the setting and policy (one per job), the communicator, the
// operation and datatype of a reduction (MPI: the same on every rank), and the bytes each
// block holds (the same on every rank by MPI's type matching rule). A rank's own datatype
// never decides: liboverlap moves any datatype (a non-contiguous one as MPI packs it).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "intercept/runtime/wait_window.hpp"
#include "intercept/shim/shim_api.h"

namespace overlap::intercept {

enum class Collective {
  ibarrier,
  ibcast,
  ireduce,
  iallreduce,
  ireduce_scatter_block,
  igather,
  iscatter,
  iallgather,
  ialltoall,
  // blocking: routed alike, then deferred or waited for (collective_deferral.hpp)
  bcast,
  reduce,
  allreduce,
  reduce_scatter_block,
  gather,
  scatter,
  allgather,
  alltoall,
};
inline constexpr int kCollectiveCount = 17;
std::string_view collective_name(Collective c);

// Why a call went to MPI's own collective instead.
enum class OwnReason {
  not_active,         // interception not active (before MPI_Init's end, after finalize)
  switched_off,       // --collectives mpi (a blocking one: or --defer without collectives)
  caller_policy,      // --progress caller: no thread keeps MPI's progress rule for it
  not_agreed,         // some rank could not route (its policy fell back to caller)
  communicator,       // a communicator without a hidden duplicate (start_collective_routes)
  intercommunicator,  // liboverlap's collectives are for intracommunicators
  operation,          // a reduction liboverlap does not do (user-defined op, datatype)
  too_large,          // a buffer over INT_MAX bytes
  below_threshold,    // its largest buffer under --min-size (MPI's own was faster there)
  invalid_argument,   // a null communicator or request, a negative count: MPI reports it
};
inline constexpr int kOwnReasonCount = 10;
std::string_view own_reason_name(OwnReason r);

struct CollectiveSite {
  Collective call = Collective::ibarrier;
  std::uintptr_t site = 0;
  std::uint64_t calls = 0;
  std::uint64_t routed = 0;
  std::uint64_t own[kOwnReasonCount] = {};
  std::string operation_note;  // the first refusal of an operation, in liboverlap's words
  // Nonblocking ones: the calls MPI (or liboverlap) accepted, their messages in all (nbc's
  // meaning: a broadcast's or reduction's vector, one rank's block of the others), and the
  // time from each call's return to the start of the call that completed its request.
  std::uint64_t accepted = 0, bytes = 0;
  WaitWindow::Summary wait_window;
};

// Fills table.route (each router sends every call to MPI's own while the settings say
// --collectives mpi, counted as switched_off).
void add_collective_routes(ovx_core& table);

// At MPI_Init, every rank there: MPI_COMM_WORLD's duplicate for liboverlap's collectives;
// every other intracommunicator gets its duplicate inside the call that makes it (the
// shim's MAKES_COMM entries), where every member is present and nothing is pending on it.
// A communicator without one (made by MPI_Comm_idup, or when a member had kMaxTwins
// already) stays with MPI's own collectives. Neither other moment is safe: a lazy
// MPI_Comm_idup at the first routed call has Open MPI 4.1 run the later rounds of its
// context id agreement on the communicator's own collective sequence, where they cross the
// program's own nonblocking collectives on it (a hang, seen in intercept.collectives), and
// a blocking duplication there can deadlock a valid program (a rank waits for a peer that
// first waits for this rank's next message).
// `blocking`: the blocking collectives are routed too (every rank's --defer has them).
// True when MPI_COMM_WORLD got its duplicate: routing is on, and this layer makes the
// duplicates of the program's communicators (liboverlap is told so at MPI_Init).
bool start_collective_routes(bool blocking);

// Per call site, for the report; and calls routed in this process so far.
std::vector<CollectiveSite> collective_sites();
std::uint64_t collectives_routed();

}  // namespace overlap::intercept
