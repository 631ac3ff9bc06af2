// Per-communicator state of liboverlap, cached on the user's communicator as an MPI
// attribute: a duplicate, so our traffic can never match the application's (made inside
// the call that made the communicator with Open MPI, creation_duplicates.cpp; otherwise
// with MPI_Comm_idup, so the first collective on a communicator does not block; none for
// a communicator of one process, where no algorithm sends: see make_context), the
// sequence of collectives called on it, and the order they may start in. When the
// duplication fails (MPICH out of context ids) the context is failed(): nothing is posted
// on the broken duplicate, so no message of ours can land on the application's context.
//
// Tags: collective number `seq` uses tag range seq % ranges (ranges = (MPI_TAG_UB + 1) /
// 1024, at least 32 by the standard, fewer with OVERLAP_TAG_RANGES). Two collectives
// sharing a range are never in flight together: a collective starts only once the
// previous user of its range completed locally, and collectives start in the order they
// were called (the posting order on the communicator is the call order on every rank),
// at most kMaxRunning at a time so many outstanding collectives cost little memory.
// Every rank takes one sequence number per collective call, before any argument check,
// whatever the outcome (a call refused on the root only must not shift later ones).
//
// Nothing here calls MPI from a destructor or an MPI callback: when the application frees
// its communicator, the attribute's delete callback only marks the context; the duplicate
// is freed at the next safe point once the collectives on it completed (sweep_contexts).
#pragma once

#include <mpi.h>

#include <atomic>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace overlap::collectives {

inline constexpr std::size_t kMaxRunning = 32;

class CommContext {
 public:
  CommContext() = default;
  ~CommContext() = default;  // never calls MPI: release() frees the duplicate
  CommContext(const CommContext&) = delete;
  CommContext& operator=(const CommContext&) = delete;

  int rank() const { return rank_; }
  // The duplication failed (e.g. MPICH ran out of context ids): nothing is ever posted on
  // the duplicate, every collective gated on it fails with failure_code(), and later calls
  // are refused with failure().
  bool failed() const { return failed_.load(std::memory_order_acquire); }
  const std::string& failure() const { return failure_; }  // once failed()
  int failure_code() const { return failure_code_; }       // once failed()
  int size() const { return size_; }
  // The duplicate; valid once a collective started (MPI_COMM_NULL on one process).
  const MPI_Comm* comm() const { return &dup_; }
  int ranges() const { return ranges_; }
  // Every rank of the communicator is in this process's MPI_COMM_WORLD, so all of them use
  // the parameters calibrated there (cost_params.hpp); otherwise they use the defaults.
  bool within_world() const { return within_world_; }

  // One per collective call on this communicator, on every rank, before any check.
  std::uint64_t next_sequence() { return next_seq_.fetch_add(1, std::memory_order_relaxed); }
  int tag_base(std::uint64_t seq) const;
  // The collective `seq` has a graph now; it starts when try_start(seq) says so.
  void submitted(std::uint64_t seq);
  // The gate of collective `seq` (polled under the scheduler's pass, or on the submitting
  // thread): true, once, when it may start; it then counts as started.
  bool try_start(std::uint64_t seq);
  // The collective `seq` completed (or was abandoned), started or not.
  void completed(std::uint64_t seq);
  // Collectives submitted and not completed.
  std::size_t in_flight() const;

  void mark_user_freed();
  bool user_freed() const { return user_freed_.load(); }
  // Frees the duplicate (safe points only); does nothing and returns false while the
  // duplicate is still being made.
  bool release();
  // Waits until the duplicate exists (the application's communicator is being freed).
  void finish_duplicate();
  bool released() const { return released_.load(); }

 private:
  friend std::shared_ptr<CommContext> make_context(MPI_Comm, MPI_Comm, std::string&);
  // True once the duplicate exists (or its duplication failed). Only try-locks, and not
  // at all on the thread that holds idup_mu_: MPI_Test/MPI_Wait of the duplication may
  // re-enter liboverlap through the MPI progress hook (try_lock by the owner is UB).
  bool ready();
  // PMPI_Test (or PMPI_Wait) of the duplication, idup_mu_ held by this thread (holder_).
  // Its outcome is checked: on failure the context is failed() and dup_ is never used.
  bool complete_idup_locked(bool wait);
  void record_failure(int rc);

  MPI_Comm app_ = MPI_COMM_NULL;  // the application's communicator, until it frees it
  MPI_Comm dup_ = MPI_COMM_NULL;
  MPI_Request idup_ = MPI_REQUEST_NULL;
  std::mutex idup_mu_;
  std::atomic<std::thread::id> holder_{};  // the thread holding idup_mu_
  std::atomic<bool> ready_{false};
  std::atomic<bool> failed_{false};
  std::string failure_;   // written once, before failed_
  int failure_code_ = 0;  // written once, before failed_
  std::atomic<std::uint64_t> next_seq_{0};
  // Guards the two lists, which are sorted and keep their memory: a node-based set made
  // two heap allocations per collective (docs/liboverlap.md, "The fixed cost of a
  // collective"). Sequence numbers are taken in order, so submissions mostly append. The
  // deque still takes its map at the first submission and a 512-byte block every 64.
  mutable std::mutex mu_;
  std::deque<std::uint64_t> waiting_;   // submitted, not started
  std::vector<std::uint64_t> running_;  // started, not completed (at most kMaxRunning)
  int rank_ = 0, size_ = 1, ranges_ = 1;
  bool within_world_ = true;
  std::atomic<bool> user_freed_{false};
  std::atomic<bool> released_{false};
};

// The context of `comm`, created on first use (which duplicates the communicator, a
// collective call: every rank makes it in the same order as its other collectives on
// `comm`; a communicator of one process gets no duplicate). Empty, with `error` set, when
// the communicator cannot be used.
std::shared_ptr<CommContext> context_for(MPI_Comm comm, std::string& error);
// The context of `comm` with `made` as its duplicate, made by the caller where every rank
// was present (inside the call that made `comm`: creation_duplicates.cpp, and overlap-run,
// which also makes MPI_COMM_WORLD's at MPI_Init: a duplicate made later with MPI_Comm_idup runs the
// later rounds of Open MPI's context id agreement on the communicator's own collective
// sequence, where they can cross the program's own nonblocking collectives). Takes
// `made` over. Empty, with `error` set, when `comm` has a context already.
std::shared_ptr<CommContext> context_for(MPI_Comm comm, MPI_Comm made, std::string& error);

// Forgets the context of `comm` (as if the application had freed it): later collectives on
// `comm` would make a new one. For a duplicate handed over that not every rank got.
void drop_context(MPI_Comm comm);

// Contexts alive in this process (an upper bound on the duplicates liboverlap holds).
std::size_t contexts_alive();

// Frees the duplicates of communicators the application freed, once nothing runs on them.
// Safe points only (engine_runtime sweeps).
void sweep_contexts();
// Frees every duplicate that exists; runs at MPI_Finalize. (Stopping the engine keeps
// them: a rank that restarts liboverlap must find the communicators the others use.)
void release_all_contexts();

}  // namespace overlap::collectives
