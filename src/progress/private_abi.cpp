#include "progress/private_abi.h"

#include <algorithm>
#include <cstring>
#include <optional>

#include "progress/engine_runtime.hpp"
#include "progress/mpi_errors.hpp"
#include "progress/mpi_transport.hpp"

namespace {

using namespace overlap::progress;

// OVX_Progress values (include/overlap/overlap.h), without depending on collectives/.
std::optional<ProgressPolicy> policy_of(int policy, bool& valid) {
  valid = true;
  switch (policy) {
    case 0:
      return std::nullopt;
    case 1:
      return ProgressPolicy::caller;
    case 2:
      return ProgressPolicy::shared;
    case 3:
      return ProgressPolicy::dedicated;
    default:
      valid = false;
      return std::nullopt;
  }
}

void copy_error(const std::string& text, char* error, size_t size) {
  if (error == nullptr || size == 0) return;
  const size_t n = std::min(text.size(), size - 1);
  std::memcpy(error, text.data(), n);
  error[n] = '\0';
}

}  // namespace

extern "C" {

int ovx_private_abi_version(void) { return OVX_PRIVATE_ABI_VERSION; }

int ovx_private_acquire(int policy, char* error, size_t error_size) {
  bool valid = false;
  const auto requested = policy_of(policy, valid);
  if (!valid) {
    const std::string e = "policy=" + std::to_string(policy) + " is not an OVX_Progress value";
    copy_error(e, error, error_size);
    return make_error_code(ErrorKind::argument, e);
  }
  safe_point();
  quiet_rescue_note();
  const EngineUse use = acquire_engine(requested);
  if (use.engine == nullptr) {
    copy_error(use.error, error, error_size);
    return make_error_code(ErrorKind::state, use.error);
  }
  return MPI_SUCCESS;
}

void ovx_private_release(void) {
  release_engine();
  safe_point();
}

void ovx_private_before_finalize(void) { before_mpi_finalize(); }

int ovx_private_progress(void) {
  ProgressEngine* e = running_engine();
  return e == nullptr ? 0 : e->progress();
}

int ovx_private_progress_in_call(void) {
  ProgressEngine* e = running_engine();
  return e == nullptr ? 0 : e->progress_in_call();
}

int ovx_private_watch(MPI_Request request, void (*done)(void*, const MPI_Status*), void* arg) {
  ProgressEngine* e = running_engine();
  if (e == nullptr || done == nullptr || request == MPI_REQUEST_NULL) return MPI_ERR_OTHER;
  e->scheduler().watch(mpi_request_tester(), to_slot(request), [done, arg](const RequestStatus& s) {
    const MPI_Status status = to_status(s);
    done(arg, &status);
  });
  return MPI_SUCCESS;
}

void ovx_private_hurry(int on) { hurry_engine(on != 0); }

int ovx_private_hold(int on) {
  ProgressEngine* e = running_engine();
  if (e == nullptr) return MPI_ERR_OTHER;
  if (on == 0) return e->scheduler().release_hold() ? MPI_SUCCESS : MPI_ERR_OTHER;
  e->scheduler().hold(mpi_request_tester());
  return MPI_SUCCESS;
}

size_t ovx_private_in_flight(void) {
  ProgressEngine* e = running_engine();
  return e == nullptr ? 0 : e->in_flight();
}

}  // extern "C"
