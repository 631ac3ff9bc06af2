#include "collectives/application_use.hpp"

#include <mutex>

#include "collectives/calibration.hpp"
#include "progress/engine_runtime.hpp"

namespace overlap::collectives {
namespace {

enum class State { never, active, finalized };

std::mutex mu;
State state = State::never;  // guarded by mu

progress::ProgressEngine* start_locked(std::optional<progress::ProgressPolicy> requested,
                                       std::string& error) {
  const progress::EngineUse use = progress::acquire_engine(requested);
  if (use.engine == nullptr) {
    error = use.error;
    return nullptr;
  }
  state = State::active;
  // The steps' expected times follow the cost model (calibrate_world updates them).
  push_link_model();
  return use.engine;
}

}  // namespace

progress::ProgressEngine* application_start(std::optional<progress::ProgressPolicy> requested,
                                            std::string& error) {
  std::lock_guard lock(mu);
  if (state == State::active) {
    progress::ProgressEngine* e = progress::running_engine();
    if (e != nullptr && (!requested || *requested == e->policy())) return e;
    if (e != nullptr) {
      error = std::string("already running with the '") + progress::policy_name(e->policy()) +
              "' policy; call OVX_Finalize first";
      return nullptr;
    }
    state = State::finalized;  // stopped underneath (MPI_Finalize): start afresh
  }
  return start_locked(requested, error);
}

progress::ProgressEngine* application_engine(std::string& error) {
  std::lock_guard lock(mu);
  switch (state) {
    case State::active:
      if (progress::ProgressEngine* e = progress::running_engine(); e != nullptr) return e;
      error = "liboverlap was stopped by MPI_Finalize";
      return nullptr;
    case State::finalized:
      error = "liboverlap was finalized by OVX_Finalize; call OVX_Init to use it again";
      return nullptr;
    case State::never:
      break;
  }
  return start_locked(std::nullopt, error);
}

void application_finalize() {
  std::lock_guard lock(mu);
  if (state != State::active) return;
  state = State::finalized;
  progress::release_engine();
}

bool application_active() {
  std::lock_guard lock(mu);
  return state == State::active && progress::running_engine() != nullptr;
}

}  // namespace overlap::collectives
