#include "intercept/runtime/fault_handler.hpp"

#include <sched.h>
#include <signal.h>
#include <sys/prctl.h>
#include <ucontext.h>

#include <cerrno>
#include <cstdint>
#include <cstring>

#include "intercept/runtime/core_runtime.hpp"

namespace overlap::intercept {

namespace {

std::uintptr_t fault_pc(void* context) {
  const auto* uc = static_cast<const ucontext_t*>(context);
#if defined(__x86_64__)
  return static_cast<std::uintptr_t>(uc->uc_mcontext.gregs[REG_RIP]);
#elif defined(__aarch64__)
  return static_cast<std::uintptr_t>(uc->uc_mcontext.pc);
#else
  (void)uc;
  return 0;
#endif
}

// The engine's own thread (progress or rescue) makes the passes a wait would depend on: it
// must never wait. prctl(PR_GET_NAME) is a plain system call, safe in a signal handler.
bool on_engine_thread() {
  char name[16] = "";
  if (prctl(PR_GET_NAME, name, 0, 0, 0) != 0) return false;
  return std::strncmp(name, kEngineThreadName, sizeof name) == 0;
}

void on_segv(int sig, siginfo_t* info, void* context) {
  const int saved_errno = errno;
  Runtime& rt = runtime();
  ovx_thread_state* thread = rt.shim->thread_state();
  // kill()/raise() (si_code <= 0) and faults on unmapped memory are never ours.
  if (info == nullptr || info->si_code != SEGV_ACCERR) {
    rt.shim->chain_segv(sig, info, context);
    errno = saved_errno;
    return;
  }
  const auto address = reinterpret_cast<std::uintptr_t>(info->si_addr);
  Slot* s = rt.table.hold_covering(address);
  if (s == nullptr) {
    std::uint64_t changes = 0;
    if (protected_by_us(address, changes)) {
      // This thread closed the page for a transfer it is still posting: MPI touched memory
      // there that is not the program's buffer (deferral.cpp takes only pages the buffer
      // owns). It would retry forever: say so and end.
      if (thread->posting != 0) {
        fatal(
            "MPI touched a page closed for a transfer it was still posting (memory next to "
            "the program's buffer that overlap-run took for the buffer's own)");
      }
      // Another thread protected the page and has not yet published its transfer (it does
      // right after posting it): run the instruction again until it has.
      sched_yield();
    } else if (thread->retry_addr == address && thread->retry_generation == changes) {
      // Faulted here before, and no protection of ours has changed since: not ours.
      thread->retry_addr = 0;
      rt.shim->chain_segv(sig, info, context);
    } else {
      // Our protection was lifted between the fault and now (the transfer completed): the
      // instruction will run. Should it fault again with nothing changed, it is not ours.
      thread->retry_addr = address;
      thread->retry_generation = changes;
    }
    errno = saved_errno;
    return;
  }
  thread->retry_addr = 0;
  if (thread->in_mpi > 0 || on_engine_thread()) {
    fatal(
        "MPI or liboverlap's progress thread touched a buffer protected for a deferred "
        "transfer");
  }
  const std::uint64_t start = now_ns();
  std::uint64_t no_touch = 0;
  if (s->touch_ns.compare_exchange_strong(no_touch, start)) {
    s->touch_pc.store(fault_pc(context), std::memory_order_relaxed);
  }
  s->faults.fetch_add(1, std::memory_order_relaxed);
  ++thread->in_fault;  // placement from here on copies (placement.cpp)
  wait_slot(*s, s->token.load(std::memory_order_acquire));
  --thread->in_fault;
  s->stall_ns.fetch_add(now_ns() - start, std::memory_order_relaxed);
  s->handlers.fetch_sub(1, std::memory_order_acq_rel);
  errno = saved_errno;
}

}  // namespace

void install_fault_handler() { runtime().shim->install_segv(on_segv); }

}  // namespace overlap::intercept
