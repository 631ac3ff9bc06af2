// What the report says per call site: calls, bytes, how many were deferred and why the
// others were not, the overlap window each deferred transfer gained (from the call's
// return to the first touch of its buffer, or to its completion when the program did not
// touch it before), faults, the time the program waited in them, and where it touched
// the buffers first. Records only; the report writer formats them.
#pragma once

#include <atomic>
#include <cstdint>
#include <map>
#include <mutex>
#include <string_view>
#include <utility>
#include <vector>

#include "intercept/shim/site_counters.h"

namespace overlap::intercept {

enum class Call {
  send,
  rsend,
  ssend,
  bsend,
  recv,
  sendrecv_send,
  sendrecv_recv,
  sendrecv_replace,
  // blocking collectives routed to liboverlap (calls/collective_deferral.hpp)
  bcast,
  reduce,
  allreduce,
  reduce_scatter_block,
  gather,
  scatter,
  allgather,
  alltoall,
};
std::string_view call_name(Call c);

// Why a call ran as the plain blocking call.
enum class Reason {
  family_off,         // switched off (--defer)
  below_threshold,    // smaller than --min-size
  proc_null,          // MPI_PROC_NULL: nothing to move
  wildcard_status,    // MPI_ANY_SOURCE/MPI_ANY_TAG and the program wants the status
  noncontiguous,      // receive, derived datatype with holes, MPI_THREAD_MULTIPLE program
  errors_return,      // receive, collective: the communicator's error handler returns errors
  stack_memory,       // buffer on the stack
  shared_memory,      // buffer in shared memory (another process may touch it)
  read_only_memory,   // buffer in memory that is not private and writable
  unknown_memory,     // address not in any mapping
  shares_first_page,  // receive: its first page holds other data
  shares_last_page,   // receive: its last page holds other data
  too_many,           // the table of transfers in flight is full
  synchronous_mode,   // MPI_Ssend: completion tells the program the receive started
  buffered_mode,      // MPI_Bsend: MPI copies at the call already
  protect_failed,     // mprotect() refused (e.g. the kernel's limit on mappings)
  owned_by_request,   // receive: a pending request of the program's holds that memory
  sparse_type,        // derived datatype spanning more than twice its data
  mpi_error,          // MPI refused the call (its error went back to the program)
  in_place_scatter,   // MPI_Reduce_scatter_block in place: its input outsizes its result
  observed_at_once,   // collective: its site's results were read at once (CallSites)
  halves_share_page,  // MPI_Sendrecv: its send and receive buffers share a page
};
inline constexpr int kReasonCount = 22;
std::string_view reason_name(Reason r);
std::string_view reason_text(Reason r);

struct TouchSite {
  std::uint64_t count = 0;
  double delay_sum_s = 0;  // from the call's return to the touch
  double delay_min_s = 0;
};

struct SiteStats {
  Call call = Call::send;
  std::uintptr_t site = 0;  // return address of the program's call
  std::uint64_t calls = 0;
  std::uint64_t bytes = 0;
  std::uint64_t deferred = 0;
  std::uint64_t deferred_by_copy = 0;  // sends copied instead of protected
  std::uint64_t not_deferred[kReasonCount] = {};
  std::uint64_t completed = 0;  // deferred transfers that finished
  std::uint64_t touched_before_completion = 0;
  std::uint64_t faults = 0;
  double stall_s = 0;  // waiting in the fault handler
  double window_sum_s = 0, window_min_s = 0, window_max_s = 0;
  std::vector<double> window_samples;           // bounded: every k-th when many
  std::map<std::uintptr_t, TouchSite> touches;  // faulting instruction -> first touches there
};

// A finished deferred transfer, as the core hands it over.
struct Completion {
  double window_s = 0;
  bool touched = false;  // before completion
  std::uintptr_t touch_pc = 0;
  double touch_delay_s = 0;
  std::uint64_t faults = 0;
  double stall_s = 0;
  double duration_s = 0;  // from the call's return to completion
};

// What every intercepted call adds to, per site and thread, and each thread's cache of
// its sites (site_counters.h: the shim counts calls it sends straight to MPI itself).
using SiteCounters = ovx_site_counters;
using SiteCache = ovx_site_cache;
static_assert(static_cast<int>(Call::send) == OVX_CALL_SEND &&
              static_cast<int>(Call::recv) == OVX_CALL_RECV);
static_assert(static_cast<int>(Reason::below_threshold) == OVX_REASON_BELOW_THRESHOLD &&
              kReasonCount <= OVX_REASON_COUNT);

class CallSites {
 public:
  CallSites();
  CallSites(const CallSites&) = delete;
  CallSites& operator=(const CallSites&) = delete;

  // The calling thread's counters of a site, for the calling thread only (it is their one
  // writer): `thread` names it for the process's life (not 0), `mine` is its cache.
  // Lock-free once the thread has met the site (map nodes never move, so the cached
  // pointers stay valid).
  SiteCounters& counters(Call call, std::uintptr_t site, SiteCache& mine, std::uint64_t thread);
  // A deferred call, counted on the calling thread's counters of its site.
  void deferred(SiteCounters& mine, bool by_copy);
  void completed(Call call, std::uintptr_t site, const Completion& c);
  // Whether a blocking collective at this site should be waited for rather than deferred
  // because the program reads its results at once: its last kAtOnceStreak completions
  // were touched within the first eighth of their run (the deferral bought nothing and
  // cost the copy, protection and placement). Every kAtOnceProbe-th such call is deferred
  // anyway, to notice when the program changes its ways.
  bool observed_at_once(Call call, std::uintptr_t site);
  static constexpr int kAtOnceStreak = 3;
  static constexpr std::uint64_t kAtOnceProbe = 16;
  std::vector<SiteStats> snapshot() const;
  // Names this object in the threads' caches (SiteCache entries' owner; never 0).
  std::uint64_t id() const { return id_; }
  // Calls deferred so far, every site: read without the lock (overlap-bench p2p asks
  // before and after each round trip, overlap_intercept_deferred()).
  std::uint64_t deferred_total() const { return deferred_total_.load(std::memory_order_relaxed); }

 private:
  struct Entry {
    std::map<std::uint64_t, SiteCounters> counters;  // per thread (its serial)
    SiteStats stats;  // the rest, under mutex_ (only deferred transfers add to it)
    int at_once = 0;  // completions in a row read at once (observed_at_once)
    std::uint64_t waited_at_once = 0;
  };
  Entry& at(Call call, std::uintptr_t site);  // mutex_ held
  const std::uint64_t id_;  // names this object in the threads' caches (never reused)
  std::atomic<std::uint64_t> deferred_total_{0};
  mutable std::mutex mutex_;
  std::map<std::pair<int, std::uintptr_t>, Entry> sites_;
};

// Median of the samples kept (0 when none).
double median_window(const SiteStats& s);

}  // namespace overlap::intercept
