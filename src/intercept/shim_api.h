/* The interface between the two halves of the interception library (not installed, no
 * compatibility promise beyond one build):
 *  - liboverlap-intercept.so, the preloaded shim (preload_shim.c): plain C on libc alone,
 *    so that preloading it is harmless in processes that never call MPI_Init (mpiexec,
 *    shells). It defines the interposed MPI and libc functions and forwards them.
 *  - liboverlap-intercept-core.so, the core (C++, links MPI): loaded by the shim with
 *    dlopen() when the program calls MPI_Init, so MPI, the progress engine and the C++
 *    runtime only ever enter MPI programs.
 * Things a signal handler needs live in the shim: its thread-local state is initial-exec
 * TLS (a dlopen()ed object's TLS may allocate on first touch, which a handler must not). */
#ifndef OVERLAP_INTERCEPT_SHIM_API_H
#define OVERLAP_INTERCEPT_SHIM_API_H

#include <mpi.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define OVX_SHIM_ABI 3

/* The name liboverlap gives its progress (and rescue) thread. */
#define OVX_ENGINE_THREAD_NAME "ovx-progress"

/* Per thread, owned by the shim. */
struct ovx_thread_state {
  int in_mpi;       /* depth of interposed MPI calls on this thread */
  const void* site; /* return address of the outermost one (the program's call site) */
  /* A fault the handler let retry (see core): its address, and the count of protection
   * changes made by then. */
  uintptr_t retry_addr;
  uint64_t retry_generation;
  int kind; /* 0 not known yet, 1 a program's thread, 2 liboverlap's progress thread */
};

struct ovx_shim {
  int abi;
  /* Deferred transfers in flight; the core keeps it, libc wrappers read it (fast path). */
  int* active;
  struct ovx_thread_state* (*thread_state)(void);
  /* Installs `handler` for SIGSEGV; from then on the program's sigaction()/signal() on
   * SIGSEGV are recorded, not installed, and chain_segv() forwards to them. */
  void (*install_segv)(void (*handler)(int, siginfo_t*, void*));
  void (*chain_segv)(int sig, siginfo_t* info, void* context);
  /* The next definition of a symbol after the shim (MPI's or libc's own). */
  void* (*next)(const char* name);
};

/* What the core offers; a NULL CORE entry means "MPI's own function". */
struct ovx_core {
#define X(kind, name, params, args) int(*name) params;
#include "intercept/mpi_functions.def"
#undef X
  /* MPI_Init / MPI_Init_thread (thread_form 0 / 1). */
  int (*init)(int* argc, char*** argv, int required, int* provided, int thread_form);
  void (*fence)(void); /* completes every deferred transfer */
  void (*poll)(void);  /* one progress pass (policy caller) */
  /* Before libc touches [addr, addr+len): completes the transfers protecting it; `write`
   * when the memory will be written (or freed), else only no-access pages matter. */
  void (*settle)(const void* addr, size_t len, int write);
  void (*settle_free)(void* pointer); /* before free()/realloc() of a heap block */
  /* 1 while calls are intercepted (after MPI_Init, not --off, the engine running). */
  int (*active)(void);
  /* What a program may ask about its interception (the shim's overlap_intercept_*
   * exports; overlap-bench p2p records them): calls deferred so far; while active, the
   * smallest message deferred (else -1), the policy in effect and the call families
   * deferred (static texts, else NULL). */
  long (*deferred)(void);
  long (*min_size)(void);
  const char* (*policy)(void);
  const char* (*families)(void);
};

/* Exported by the core. */
const struct ovx_core* ovx_intercept_core_start(const struct ovx_shim* shim);

#ifdef __cplusplus
}
#endif

#endif /* OVERLAP_INTERCEPT_SHIM_API_H */
