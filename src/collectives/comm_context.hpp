// Per-communicator state of liboverlap, cached on the user's communicator as an MPI
// attribute: a duplicate made with MPI_Comm_idup (so the first collective on a
// communicator does not block, and our traffic can never match the application's) and a
// sequence number that gives every collective its own range of tags.
#pragma once

#include <mpi.h>

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>

namespace overlap::collectives {

class CommContext {
 public:
  CommContext() = default;
  ~CommContext();
  CommContext(const CommContext&) = delete;
  CommContext& operator=(const CommContext&) = delete;

  int rank() const { return rank_; }
  int size() const { return size_; }
  // The duplicate; valid once ready() returned true.
  const MPI_Comm* comm() const { return &dup_; }
  // True once the duplicate exists. Called by graphs' gates, under the scheduler's pass.
  bool ready();
  // First tag of the next collective's range (same on every rank: collectives on one
  // communicator are called in the same order everywhere).
  int next_tag_base();
  // Frees the duplicate (at MPI_Finalize or OVX_Finalize, before MPI forbids it). A
  // released context is replaced by a fresh one if liboverlap is started again.
  void release();
  bool released() const { return released_; }

 private:
  friend std::shared_ptr<CommContext> context_for(MPI_Comm, std::string&);
  MPI_Comm dup_ = MPI_COMM_NULL;
  MPI_Request idup_ = MPI_REQUEST_NULL;
  std::atomic<bool> ready_{false};
  std::atomic<std::uint32_t> sequence_{0};
  int rank_ = 0, size_ = 1, ranges_ = 1;
  bool released_ = false;
};

// The context of `comm`, created on first use. Empty (with `error` set) when the
// communicator cannot be used (intercommunicator, too few tags).
std::shared_ptr<CommContext> context_for(MPI_Comm comm, std::string& error);

// Frees every duplicate still alive; called once when liboverlap shuts down.
void release_all_contexts();

}  // namespace overlap::collectives
