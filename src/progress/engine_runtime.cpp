#include "progress/engine_runtime.hpp"

#include <mpi.h>
#include <pthread.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <vector>

#include "progress/auto_policy.hpp"
#include "progress/mpi_errors.hpp"
#include "progress/mpi_progress_hook.hpp"
#include "progress/thread_level.hpp"

namespace overlap::progress {
namespace {

// How long MPI_Finalize lets abandoned collectives' posted operations finish.
constexpr std::chrono::milliseconds kFinalizeGrace{2000};

struct Runtime {
  std::mutex mu;
  ProgressEngine engine;                  // the one engine; outlives every request
  std::unique_ptr<MpiProgressHook> hook;  // guarded by mu
  int uses = 0;                           // guarded by mu
  bool started = false;                   // guarded by mu
  bool finalized = false;                 // liboverlap's part of MPI_Finalize ran; guarded by mu
  int self_keyval = MPI_KEYVAL_INVALID;   // guarded by mu
  std::vector<std::function<void()>> finalize_hooks;  // guarded by mu
  std::atomic<ProgressEngine*> running{nullptr};
  std::atomic<bool> draining{false};  // no users left, work still in flight
  std::atomic<int> users{0};
  std::atomic<bool> finalizing{false};

  std::mutex sweep_mu;
  std::vector<std::function<void()>> sweepers;  // guarded by sweep_mu
  std::atomic<bool> sweep_requested{false};
};

std::atomic<bool> forked{false};
// An interposition library (overlap-run) uses the engine: its own report says how
// transfers progressed, and the program's output stays its own.
std::atomic<bool> quiet_rescue{false};

// Never destroyed (see the header): no static destructor stops a thread, and a request
// completing during static destruction still finds the engine.
Runtime& rt() {
  static Runtime* r = [] {
    pthread_atfork(nullptr, nullptr, [] { forked.store(true); });
    return new Runtime;
  }();
  return *r;
}

void sweep() {
  Runtime& r = rt();
  if (!r.sweep_requested.exchange(false)) return;
  std::lock_guard lock(r.sweep_mu);
  for (auto& s : r.sweepers) s();
}

void stop_locked(Runtime& r) {
  r.running.store(nullptr, std::memory_order_release);
  r.hook.reset();  // no more calls from MPI's progress loop
  r.engine.stop();
  r.started = false;
  r.draining.store(false);
  r.users.store(0);
}

void maybe_stop_locked(Runtime& r) {
  if (!r.started || r.uses > 0) return;
  if (r.engine.in_flight() == 0) {
    stop_locked(r);
  } else {
    r.draining.store(true);
  }
}

// liboverlap's part of MPI_Finalize, once: with the engine's thread joined before MPI
// starts tearing down, no thread of ours is inside MPI while it does.
void finalize_engine() {
  Runtime& r = rt();
  r.finalizing.store(true);
  std::lock_guard lock(r.mu);
  if (r.finalized) return;
  r.finalized = true;
  if (!r.started) {
    for (auto& h : r.finalize_hooks) h();
    return;
  }
  r.running.store(nullptr, std::memory_order_release);
  r.hook.reset();
  r.engine.stop();  // this thread alone drives what is left
  if (r.engine.in_flight() > 0) {
    const auto report = r.engine.scheduler().abandon_all(kFinalizeGrace);
    if (report.abandoned > 0) {
      std::fprintf(stderr,
                   "liboverlap: %zu collective(s) still in flight at MPI_Finalize, which is "
                   "erroneous (MPI requires them completed first): their receives were "
                   "cancelled and their requests completed with an error%s\n",
                   report.abandoned,
                   report.stuck > 0 ? "; some sends never finished, their memory is kept" : "");
    }
  }
  sweep();
  stop_locked(r);
  for (auto& h : r.finalize_hooks) h();
}

// The fallback when liboverlap's MPI_Finalize was not the one called (a tool of the
// program's own interposes it and calls PMPI_Finalize): MPI deletes MPI_COMM_SELF's
// attributes first thing in MPI_Finalize, with MPI still usable. Too late on MPICH, which
// has already stopped locking by then (mpi_finalize.cpp).
int on_mpi_finalize(MPI_Comm, int, void*, void*) {
  finalize_engine();
  return MPI_SUCCESS;
}

std::string mpi_state_error() {
  int initialized = 0, finalized = 0;
  PMPI_Finalized(&finalized);
  if (finalized) return "MPI is already finalized";
  PMPI_Initialized(&initialized);
  if (!initialized)
    return "MPI is not initialised; call MPI_Init_thread before liboverlap (liboverlap never "
           "initialises MPI itself)";
  return "";
}

// Which MPI calls can reach the engine decides whether `caller` is safe here.
void choose_caller_mechanism(EngineConfig& config) {
#if defined(MPICH)
  // MPICH polls a generalized request only from tests of that request: a thread must
  // step in when the application blocks in any other MPI call.
  config.rescue = config.policy == ProgressPolicy::caller;
#else
  (void)config;
#endif
}

std::string thread_level_error(const EngineConfig& config) {
  int provided = MPI_THREAD_SINGLE;
  PMPI_Query_thread(&provided);
  if (!needs_thread(config) || provided >= MPI_THREAD_MULTIPLE) return "";
  if (config.policy == ProgressPolicy::caller) {
    return std::string(
               "the 'caller' policy needs MPI_THREAD_MULTIPLE with MPICH, but MPI provides ") +
           thread_level_name(provided) +
           ": MPICH calls liboverlap only from MPI_Test/MPI_Wait on liboverlap's own requests, "
           "so a thread of liboverlap must progress collectives while the application blocks "
           "in other MPI calls; initialise MPI with MPI_Init_thread(..., MPI_THREAD_MULTIPLE, "
           "...)";
  }
  return std::string("the '") + policy_name(config.policy) +
         "' progress policy runs a thread that calls MPI and needs MPI_THREAD_MULTIPLE, but MPI "
         "provides " +
         thread_level_name(provided) +
         "; initialise MPI with MPI_Init_thread(..., MPI_THREAD_MULTIPLE, ...) or use "
         "OVERLAP_PROGRESS=caller";
}

void note_rescue() {
  if (quiet_rescue.load(std::memory_order_relaxed)) return;
  std::fprintf(stderr,
               "liboverlap: 'caller' policy: nothing progressed liboverlap's collectives for a "
               "while although some were in flight (MPICH calls liboverlap only from "
               "MPI_Test/MPI_Wait on liboverlap's requests); a rescue thread progresses them "
               "meanwhile. OVERLAP_PROGRESS=shared avoids the wait\n");
}

// The default policy (no explicit choice, no OVERLAP_PROGRESS) below MPI_THREAD_MULTIPLE:
// `caller` where MPI reaches liboverlap from every call without a thread of ours (Open MPI
// with its progress hook). Not with MPICH: its `caller` needs the rescue thread, i.e.
// MPI_THREAD_MULTIPLE, so the default there is refused as before. Said once on stderr.
// (Should the hook be missing, start_locked refuses `caller` and says why.)
void fall_back_to_caller(EngineConfig& config) {
#if defined(MPICH)
  (void)config;
#else
  if (!config.automatic || !needs_thread(config)) return;
  int provided = MPI_THREAD_SINGLE;
  PMPI_Query_thread(&provided);
  if (provided >= MPI_THREAD_MULTIPLE) return;
  config.policy = ProgressPolicy::caller;
  config.reason = std::string("MPI provides ") + thread_level_name(provided) +
                  ", below MPI_THREAD_MULTIPLE: no thread of ours may call MPI";
  static std::atomic<bool> said{false};
  if (!said.exchange(true)) {
    std::fprintf(stderr,
                 "liboverlap: MPI provides %s (below MPI_THREAD_MULTIPLE), so the default "
                 "progress policy is 'caller' (collectives progress inside the application's MPI "
                 "calls)\n",
                 thread_level_name(provided));
  }
#endif
}

// OVERLAP_PROGRESS unset or `auto`: the policy this rank's cores allow (auto_policy.hpp),
// said once on stderr with OVERLAP_VERBOSE=1.
void resolve_automatic(EngineConfig& config) {
  if (!config.automatic) return;
  const AutoChoice c = resolve_auto(gather_auto_inputs(0, false));
  config.policy = c.policy;
  config.reason = "auto: " + c.reason;
  const char* verbose = std::getenv("OVERLAP_VERBOSE");
  if (verbose == nullptr || std::atoi(verbose) == 0) return;
  int rank = 0;
  PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
  std::fprintf(stderr, "liboverlap: rank %d: progress policy '%s' (%s)\n", rank,
               policy_name(c.policy), config.reason.c_str());
}

// Starts the engine; r.mu held. Returns an error or "".
std::string start_locked(Runtime& r, std::optional<ProgressPolicy> requested) {
  auto cfg = config_from_environment(requested);
  if (!cfg.error.empty()) return cfg.error;
  resolve_automatic(cfg.config);
  fall_back_to_caller(cfg.config);
  choose_caller_mechanism(cfg.config);
  if (std::string e = thread_level_error(cfg.config); !e.empty()) return e;
  ThreadHooks hooks;
  hooks.safe_point = sweep;
  hooks.first_rescue = note_rescue;
  if (std::string e = r.engine.start(cfg.config, hooks); !e.empty()) return e;
  r.hook = std::make_unique<MpiProgressHook>(r.engine);
#if !defined(MPICH)
  if (cfg.config.policy == ProgressPolicy::caller && !r.hook->covers_all_mpi_calls()) {
    r.hook.reset();
    r.engine.stop();
    return "the 'caller' policy needs a hook into the MPI library's progress loop, and none "
           "was found (Open MPI's opal_progress_register is not visible in this process); "
           "without it a program that blocks in MPI_Recv while a collective is in flight "
           "could hang. Use OVERLAP_PROGRESS=shared or dedicated";
  }
#endif
  if (r.self_keyval == MPI_KEYVAL_INVALID) {
    PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, on_mpi_finalize, &r.self_keyval, nullptr);
    PMPI_Comm_set_attr(MPI_COMM_SELF, r.self_keyval, nullptr);
  }
  r.started = true;
  r.running.store(&r.engine, std::memory_order_release);
  return "";
}

}  // namespace

EngineUse acquire_engine(std::optional<ProgressPolicy> requested) {
  if (in_forked_child())
    return {nullptr,
            "liboverlap cannot be used in a child process created by fork() (its progress "
            "engine belongs to the parent)"};
  Runtime& r = rt();
  std::lock_guard lock(r.mu);
  if (std::string e = mpi_state_error(); !e.empty()) return {nullptr, e};
  if (r.finalized) return {nullptr, "liboverlap was stopped by MPI_Finalize"};
  prepare_error_codes();
  if (r.started && r.uses == 0 && requested && *requested != r.engine.policy()) {
    // Draining what users left before OVX_Finalize: restart with the policy asked for now;
    // the scheduler keeps what is in flight across the restart. Should the new policy be
    // refused, the old one goes on draining.
    const ProgressPolicy old = r.engine.policy();
    stop_locked(r);
    if (std::string e = start_locked(r, requested); !e.empty()) {
      if (r.engine.in_flight() > 0 && start_locked(r, old).empty()) r.draining.store(true);
      return {nullptr, e};
    }
  }
  if (r.started) {
    if (requested && *requested != r.engine.policy()) {
      return {nullptr, std::string("already running with the '") + policy_name(r.engine.policy()) +
                           "' policy; call OVX_Finalize first"};
    }
  } else if (std::string e = start_locked(r, requested); !e.empty()) {
    return {nullptr, e};
  }
  ++r.uses;
  r.users.store(r.uses);
  r.draining.store(false);
  return {&r.engine, ""};
}

void release_engine() {
  Runtime& r = rt();
  if (in_forked_child()) return;
  std::lock_guard lock(r.mu);
  if (r.uses == 0) return;
  --r.uses;
  r.users.store(r.uses);
  maybe_stop_locked(r);
}

ProgressEngine* running_engine() { return rt().running.load(std::memory_order_acquire); }

int engine_users() { return rt().users.load(); }

void hurry_engine(bool on) noexcept {
  Scheduler& s = rt().engine.scheduler();
  if (on) {
    s.hurry();
  } else {
    s.unhurry();
  }
}

void set_engine_link_model(LinkModel m) { rt().engine.scheduler().set_link_model(m); }

void safe_point() {
  if (in_forked_child()) return;
  Runtime& r = rt();
  sweep();
  if (!r.draining.load()) return;
  std::lock_guard lock(r.mu);
  maybe_stop_locked(r);
}

void add_sweeper(std::function<void()> s) {
  Runtime& r = rt();
  std::lock_guard lock(r.sweep_mu);
  r.sweepers.push_back(std::move(s));
}

void request_sweep() { rt().sweep_requested.store(true); }

void add_finalize_hook(std::function<void()> hook) {
  Runtime& r = rt();
  std::lock_guard lock(r.mu);
  r.finalize_hooks.push_back(std::move(hook));
}

bool mpi_finalizing() { return rt().finalizing.load(); }

void before_mpi_finalize() {
  if (in_forked_child()) return;
  int initialized = 0, finalized = 0;
  PMPI_Initialized(&initialized);
  PMPI_Finalized(&finalized);
  if (initialized && !finalized) finalize_engine();
}

std::string progress_mechanism() {
  Runtime& r = rt();
  std::lock_guard lock(r.mu);
  if (!r.started) return "none (not running)";
  std::string m = r.hook ? r.hook->mechanism() : "none";
  if (r.engine.config().rescue) m += ", rescue thread";
  return m;
}

bool in_forked_child() { return forked.load(); }

void quiet_rescue_note() { quiet_rescue.store(true, std::memory_order_relaxed); }

}  // namespace overlap::progress
