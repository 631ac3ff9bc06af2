// Who makes deferred transfers progress. The interception layer posts each transfer
// itself, on the program's thread, in program order (that keeps MPI's matching order),
// then hands the request here with a completion callback. The interface is the shape of
// liboverlap's private engine ABI (progress/private_abi.h: watch, progress pass, in
// flight) so that the process's one engine can sit behind it; LocalProgress is the
// stand-in used until then: `caller` passes only from intercepted calls and the fault
// handler, `shared`/`dedicated` add a thread that makes the passes.
#pragma once

#include <mpi.h>

#include <memory>

#include "intercept/settings.hpp"
#include "intercept/shim_api.h"

namespace overlap::intercept {

using DoneCallback = void (*)(void* arg, const MPI_Status* status);

class ProgressDriver {
 public:
  virtual ~ProgressDriver() = default;
  // From now on only the driver tests `request`; done(arg, status) runs once it completed,
  // on whichever thread makes that pass (it must not block).
  virtual void watch(MPI_Request request, DoneCallback done, void* arg) = 0;
  // One pass from the calling thread; returns the requests it completed (0 when another
  // thread is making a pass). Async-signal-safe enough for the fault handler's caller
  // policy: no lock the interrupted program code can hold.
  virtual int poll() = 0;
  // True when a thread makes passes by itself, so a waiter may sleep.
  virtual bool background() const = 0;
  // Stops the thread (MPI still initialised); requests in flight must be done.
  virtual void stop() = 0;
  virtual const char* mechanism() const = 0;
};

// `shim` lets the progress thread mark itself as MPI-internal for the fault handler.
std::unique_ptr<ProgressDriver> make_local_progress(Policy policy, const ovx_shim* shim);

}  // namespace overlap::intercept
