#include "collectives/runtime.hpp"

#include <mpi.h>

#include <atomic>
#include <cstdio>
#include <memory>
#include <mutex>

#include "collectives/comm_context.hpp"
#include "progress/mpi_progress_hook.hpp"

namespace overlap::collectives {
namespace {

struct Runtime {
  std::unique_ptr<progress::ProgressEngine> engine;
  std::unique_ptr<progress::MpiProgressHook> hook;
};

std::mutex runtime_mu;
std::unique_ptr<Runtime> runtime;  // guarded by runtime_mu (reads of the engine pointer below)
std::atomic<progress::ProgressEngine*> engine_ptr{nullptr};
int self_keyval = MPI_KEYVAL_INVALID;

void stop_locked() {
  if (!runtime) return;
  engine_ptr.store(nullptr, std::memory_order_release);
  if (const auto left = runtime->engine->in_flight(); left > 0)
    std::fprintf(stderr, "liboverlap: %zu collective(s) still in flight at shutdown\n", left);
  runtime->hook.reset();
  runtime->engine.reset();
  runtime.reset();
  release_all_contexts();
}

int on_mpi_finalize(MPI_Comm, int, void*, void*) {
  std::lock_guard lock(runtime_mu);
  stop_locked();
  return MPI_SUCCESS;
}

const char* thread_level_name(int level) {
  switch (level) {
    case MPI_THREAD_SINGLE:
      return "MPI_THREAD_SINGLE";
    case MPI_THREAD_FUNNELED:
      return "MPI_THREAD_FUNNELED";
    case MPI_THREAD_SERIALIZED:
      return "MPI_THREAD_SERIALIZED";
    default:
      return "MPI_THREAD_MULTIPLE";
  }
}

// MPI must be up, with MPI_THREAD_MULTIPLE when a thread of ours will call it. If MPI is
// not initialised yet, we initialise it ourselves, asking for MPI_THREAD_MULTIPLE.
bool check_mpi(progress::ProgressPolicy policy, std::string& error) {
  int initialized = 0, finalized = 0, provided = MPI_THREAD_SINGLE;
  MPI_Finalized(&finalized);
  if (finalized) {
    error = "MPI is already finalized";
    return false;
  }
  MPI_Initialized(&initialized);
  if (!initialized) MPI_Init_thread(nullptr, nullptr, MPI_THREAD_MULTIPLE, &provided);
  MPI_Query_thread(&provided);
  if (progress::needs_thread(policy) && provided < MPI_THREAD_MULTIPLE) {
    error = std::string("the '") + progress::policy_name(policy) +
            "' progress policy runs a thread that calls MPI and needs MPI_THREAD_MULTIPLE, "
            "but MPI provides " +
            thread_level_name(provided) +
            "; initialise MPI with MPI_Init_thread(..., MPI_THREAD_MULTIPLE, ...) or use "
            "OVERLAP_PROGRESS=caller";
    return false;
  }
  return true;
}

}  // namespace

progress::ProgressEngine* runtime_start(std::optional<progress::ProgressPolicy> requested,
                                        std::string& error) {
  std::lock_guard lock(runtime_mu);
  if (runtime) return runtime->engine.get();
  const auto cfg = progress::config_from_environment(requested);
  if (!cfg.error.empty()) {
    error = cfg.error;
    return nullptr;
  }
  if (!check_mpi(cfg.config.policy, error)) return nullptr;
  auto rt = std::make_unique<Runtime>();
  rt->engine = std::make_unique<progress::ProgressEngine>(cfg.config);
  if (!rt->engine->error().empty()) {
    error = rt->engine->error();
    return nullptr;
  }
  rt->hook = std::make_unique<progress::MpiProgressHook>(*rt->engine);
  if (self_keyval == MPI_KEYVAL_INVALID)
    MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, on_mpi_finalize, &self_keyval, nullptr);
  MPI_Comm_set_attr(MPI_COMM_SELF, self_keyval, nullptr);
  runtime = std::move(rt);
  engine_ptr.store(runtime->engine.get(), std::memory_order_release);
  return runtime->engine.get();
}

progress::ProgressEngine* runtime_engine() { return engine_ptr.load(std::memory_order_acquire); }

void runtime_stop() {
  // Deleting the attribute runs on_mpi_finalize, the same path MPI_Finalize takes.
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (!finalized && self_keyval != MPI_KEYVAL_INVALID && runtime_engine() != nullptr) {
    MPI_Comm_delete_attr(MPI_COMM_SELF, self_keyval);
    return;
  }
  std::lock_guard lock(runtime_mu);
  stop_locked();
}

}  // namespace overlap::collectives
