#include "intercept/runtime/progress_driver.hpp"

#include "progress/private_abi.h"

namespace overlap::intercept {

namespace {

// OVX_Progress values (include/overlap/overlap.h), as the private ABI takes them.
int ovx_progress_value(Policy p) {
  switch (p) {
    case Policy::caller:
      return 1;
    case Policy::shared:
      return 2;
    case Policy::dedicated:
      return 3;
    case Policy::automatic:
      return 0;  // OVX_PROGRESS_DEFAULT; core_init resolves auto before acquiring
  }
  return 2;
}

}  // namespace

std::unique_ptr<ProgressDriver> ProgressDriver::acquire(Policy policy, std::string& error) {
  if (ovx_private_abi_version() != OVX_PRIVATE_ABI_VERSION) {
    error = "liboverlap.so's private ABI is version " + std::to_string(ovx_private_abi_version()) +
            ", this overlap-run needs " + std::to_string(OVX_PRIVATE_ABI_VERSION) +
            " (mixed installations)";
    return nullptr;
  }
  char text[512] = "";
  if (ovx_private_acquire(ovx_progress_value(policy), text, sizeof text) != MPI_SUCCESS) {
    error = text;
    return nullptr;
  }
  return std::unique_ptr<ProgressDriver>(new ProgressDriver(policy));
}

ProgressDriver::~ProgressDriver() {
  drop_program_hold();
  ovx_private_release();
}

void ProgressDriver::follow_program(const std::atomic<int>& outstanding) {
  std::lock_guard lock(hold_mu_);
  const bool want = outstanding.load(std::memory_order_acquire) > 0;
  if (want == held_) return;
  if (ovx_private_hold(want ? 1 : 0) == MPI_SUCCESS || !want) held_ = want;
}

void ProgressDriver::drop_program_hold() {
  std::lock_guard lock(hold_mu_);
  if (held_) ovx_private_hold(0);
  held_ = false;
}

void ProgressDriver::before_mpi_finalize() { ovx_private_before_finalize(); }

bool ProgressDriver::watch(MPI_Request request, DoneCallback done, void* arg) const {
  return ovx_private_watch(request, done, arg) == MPI_SUCCESS;
}

int ProgressDriver::poll() const { return ovx_private_progress(); }

int ProgressDriver::poll_in_call() const { return ovx_private_progress_in_call(); }

void ProgressDriver::hurry(bool on) const { ovx_private_hurry(on ? 1 : 0); }

const char* ProgressDriver::mechanism() const {
  switch (policy_) {
    case Policy::caller:
      return "liboverlap's engine, policy caller: passes from intercepted calls, the fault "
             "handler and MPI's progress hook (no thread of its own)";
    case Policy::shared:
      return "liboverlap's engine, policy shared: its ovx-progress thread sleeping 20 us to "
             "500 us between passes, polling without sleeps while the program waits for a "
             "transfer";
    case Policy::dedicated:
      return "liboverlap's engine, policy dedicated: its ovx-progress thread bound to a core "
             "of its own, polling while transfers are in flight";
    case Policy::automatic:
      break;
  }
  return "";
}

}  // namespace overlap::intercept
