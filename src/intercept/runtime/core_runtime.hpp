// The interception core's state and the operations every call path shares: waiting for a
// transfer, settling a range before something touches it, protecting and unprotecting
// pages, completing a transfer, and folding finished transfers into the statistics.
#pragma once

#include <mpi.h>

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "intercept/launch/settings.hpp"
#include "intercept/placement/move_gate.hpp"
#include "intercept/placement/placement_reason.hpp"
#include "intercept/report/call_sites.hpp"
#include "intercept/runtime/bounce_pool.hpp"
#include "intercept/runtime/buffer_memory.hpp"
#include "intercept/runtime/footprint.hpp"
#include "intercept/runtime/progress_driver.hpp"
#include "intercept/runtime/protection_map.hpp"
#include "intercept/runtime/transfer_table.hpp"
#include "intercept/shim/shim_api.h"

namespace overlap::intercept {

// Real statuses of deferred receives, by token, for MPI_Get_count & co. on a status the
// program kept. The last kStatusRing receives are kept.
class StatusRing {
 public:
  void store(std::uint32_t token, const MPI_Status& s);
  bool load(std::uint32_t token, MPI_Status& out) const;

 private:
  static constexpr std::uint32_t kSize = 1u << 16;
  struct Entry {
    std::atomic<std::uint32_t> token{0};
    MPI_Status status{};
  };
  std::unique_ptr<Entry[]> entries_ = std::make_unique<Entry[]>(kSize);
};

struct Runtime {
  const ovx_shim* shim = nullptr;
  Settings settings;
  Policy policy = Policy::shared;
  std::string policy_note;         // why the policy differs from the one asked for
  std::string policy_reason;       // --progress auto: what it saw
  std::string progress_mechanism;  // how the engine progresses MPI (for the report)
  // UCX's memory hooks found on the shim's wrappers and put on libc's functions
  // (hook_mirror.h), and why that failed where it did.
  int memory_hooks_mirrored = 0;
  std::string memory_hooks_failure;
  int program_required = MPI_THREAD_SINGLE;
  int program_provided = MPI_THREAD_SINGLE;  // what the program is told
  int mpi_provided = MPI_THREAD_SINGLE;      // what MPI gave us
  int tag_ub = 32767;                        // MPI_COMM_WORLD's MPI_TAG_UB
  bool active = false;                       // initialised, not finalized, not a forked child
  int pid = 0;
  std::size_t page = 4096;
  int mem_fd = -1;  // /proc/self/mem, to place received data
  // Why received data is copied although --place move is in effect (placement.hpp); the
  // first reason stays, `copy_detail` names the library.
  std::atomic<CopyReason> copy_reason{CopyReason::none};
  std::atomic<const char*> copy_detail{nullptr};
  MoveGate move_gate;
  std::atomic<std::uint64_t> placed_by_move{0}, placed_by_copy{0};
  std::atomic<std::uint64_t> copied_because[kReceiveCopyKinds] = {};
  // glibc heap block headers can be read (not under a sanitizer's own allocator, whose
  // blocks look different: there only page-aligned ends count as owned).
  bool glibc_heap = true;
  std::unique_ptr<ProgressDriver> progress;
  // Before the table (hundreds of KiB): what every intercepted call reads stays near the
  // top of the object, a few cache lines and one page when its caches are cold.
  CallSites sites;
  TransferTable table;
  BouncePool bounces;  // internal buffers of deferred transfers, kept for reuse
  std::mutex protect_mutex;
  ProtectionMap protections;
  std::uint64_t protection_changes = 0;  // mprotect() calls made, under protect_mutex
  std::mutex regions_mutex;
  MemoryRegions regions;
  StatusRing statuses;
  std::atomic<std::uint32_t> next_token{1};
  std::vector<std::string> argv;
};

Runtime& runtime();
std::uint64_t now_ns();
// The calling thread's counters of the program's call site now being served, for `call`
// (the shim's thread state holds the site and the thread's cache of sites).
SiteCounters& own_counters(Call call);

// Blocks until the transfer in `s` (still carrying `token`) is done, making progress
// itself when no thread does.
void wait_slot(Slot& s, std::uint32_t token);
// Every intercepted call the core serves: a pass under policy caller, and finished
// transfers reaped.
void begin_call();
// Completes the transfers an access to [lo, hi) conflicts with (see TransferTable).
void settle(std::uintptr_t lo, std::uintptr_t hi, bool write);
// A datatype's extents as footprint.hpp takes them (zero when MPI refuses the type: the
// call itself then fails, and there is nothing to wait for).
TypeExtent type_extent(MPI_Datatype type);
// The bytes `count` elements of `type` at `buf` span (their hull).
Span typed_bytes(const void* buf, std::int64_t count, MPI_Datatype type, bool write);
// settle() over a span; nothing when no transfer is in flight.
void settle_span(const Span& s);
void settle_all();
// Completes the transfers the calling thread deferred.
void settle_own();
// Hands a slot's internal buffers back to the pool.
void return_bounces(Slot& s);
// Folds finished transfers into the statistics and frees their slots.
void reap();

// Protection of [lo, hi) (page aligned) for a transfer; false when mprotect failed (then
// nothing changed).
bool protect(std::uintptr_t lo, std::uintptr_t hi, bool no_access);
void unprotect(std::uintptr_t lo, std::uintptr_t hi, bool no_access);
// Whether a protection of ours covers `address` now (then a transfer owns it, perhaps not
// yet published), and how many protection changes had been made (all of them complete).
bool protected_by_us(std::uintptr_t address, std::uint64_t& changes);

// Completion callback for the progress driver (arg: a SlotPart).
void on_request_done(void* arg, const MPI_Status* status);

// One line to stderr and abort(): for states where waiting could deadlock and going on
// could corrupt data. Async-signal-safe.
[[noreturn]] void fatal(const char* what);

}  // namespace overlap::intercept
