#include "progress/mpi_progress_hook.hpp"

#include <mpi.h>

#include <atomic>
#include <cstdlib>
#include <cstring>

#if defined(OPEN_MPI)
#include <dlfcn.h>
#endif

namespace overlap::progress {
namespace {

std::atomic<ProgressEngine*> hooked_engine{nullptr};

[[maybe_unused]] int hook_callback() {
  ProgressEngine* e = hooked_engine.load(std::memory_order_acquire);
  return e == nullptr ? 0 : e->progress();
}

#if defined(OPEN_MPI)
using RegisterFn = int (*)(int (*)());
RegisterFn lookup(const char* name) {
  return reinterpret_cast<RegisterFn>(dlsym(RTLD_DEFAULT, name));
}
#endif

}  // namespace

MpiProgressHook::MpiProgressHook(ProgressEngine& engine) {
  hooked_engine.store(&engine, std::memory_order_release);
#if defined(MPICH)
  mechanism_ = "MPIX poll function (MPI_Test/MPI_Wait on liboverlap's requests only)";
#elif defined(OPEN_MPI)
  // OVERLAP_DISABLE_MPI_HOOK=1 behaves as if the symbol could not be found (the case of an
  // Open MPI loaded with RTLD_LOCAL by a plugin host); tests use it for the refusal path.
  const char* off = std::getenv("OVERLAP_DISABLE_MPI_HOOK");
  const bool disabled = off != nullptr && std::strcmp(off, "1") == 0;
  if (RegisterFn reg = disabled ? nullptr : lookup("opal_progress_register");
      reg != nullptr && reg(hook_callback) == 0) {
    registered_ = true;
    mechanism_ = "opal_progress callback";
  }
#endif
}

MpiProgressHook::~MpiProgressHook() {
#if defined(OPEN_MPI)
  if (registered_) {
    if (RegisterFn unreg = lookup("opal_progress_unregister"); unreg != nullptr)
      unreg(hook_callback);
  }
#endif
  hooked_engine.store(nullptr, std::memory_order_release);
}

}  // namespace overlap::progress
