// Who makes deferred transfers progress: the process's one progress engine (liboverlap's,
// progress/engine_runtime.hpp), reached through its private ABI (progress/private_abi.h)
// because the core is a separate shared object. The interception layer posts each
// transfer itself, on the program's thread, in program order (that keeps MPI's matching
// order), then hands the request to the engine with a completion callback; the engine
// tests it in the same MPI_Testsome as its own collectives. A program that links
// liboverlap and runs under overlap-run therefore has one engine, one policy, one thread.
#pragma once

#include <mpi.h>

#include <atomic>
#include <memory>
#include <mutex>
#include <string>

#include "intercept/launch/settings.hpp"
#include "intercept/shim/shim_api.h"

namespace overlap::intercept {

using DoneCallback = void (*)(void* arg, const MPI_Status* status);

class ProgressDriver {
 public:
  ProgressDriver(const ProgressDriver&) = delete;
  ProgressDriver& operator=(const ProgressDriver&) = delete;
  // Ends the use of the engine (MPI still initialised; nothing of ours in flight).
  ~ProgressDriver();

  // From now on only the engine tests `request`; done(arg, status) runs once it completed,
  // on whichever thread makes that pass (it must not block). False if the engine refused.
  bool watch(MPI_Request request, DoneCallback done, void* arg) const;
  // One pass from the calling thread; returns the work it did (0 when another thread is
  // making a pass).
  int poll() const;
  // The same pass at the start of one of the program's own MPI calls (policy caller): the
  // program's requests are left to that call (no probe for them; docs/liboverlap.md,
  // "Point-to-point progress").
  int poll_in_call() const;
  // True when the engine's thread makes passes by itself, so a waiter may sleep.
  bool background() const { return policy_ != Policy::caller; }
  // Around a sleeping wait for a transfer: the engine's thread polls meanwhile instead of
  // pausing between passes. Async-signal-safe.
  void hurry(bool on) const;
  // While `outstanding` (the program's own requests, program_requests.hpp) is above zero
  // the engine passes and pokes MPI's own progress in each pass (a hold): call after the
  // count went from none to some or back. Thread-safe: each call re-reads the count under
  // a lock, so the last one leaves the hold as the count is.
  void follow_program(const std::atomic<int>& outstanding);
  // Ends the hold whatever the count (MPI_Finalize).
  void drop_program_hold();
  Policy policy() const { return policy_; }
  const char* mechanism() const;

  // Joins (or starts) the engine with `policy`; nullptr and one line in `error` when the
  // engine cannot run here (e.g. the thread level MPI gave, or a policy already chosen).
  static std::unique_ptr<ProgressDriver> acquire(Policy policy, std::string& error);
  // liboverlap's part of MPI_Finalize (stops the engine for good, whoever uses it): our
  // MPI_Finalize calls PMPI_Finalize, which would not reach liboverlap's MPI_Finalize.
  static void before_mpi_finalize();

 private:
  explicit ProgressDriver(Policy policy) : policy_(policy) {}
  Policy policy_;
  std::mutex hold_mu_;
  bool held_ = false;  // under hold_mu_
};

// The engine's progress thread is named like this (progress/progress_thread.cpp); the
// fault handler never waits on it.
inline constexpr char kEngineThreadName[] = OVX_ENGINE_THREAD_NAME;

}  // namespace overlap::intercept
