/* liboverlap-intercept.so: the preloaded half of overlap-run's interception (shim_api.h).
 * Until the program calls MPI_Init it only forwards: every interposed function calls the
 * next definition (MPI's, libc's), so processes that never start MPI (the launcher,
 * shells) run as without it. MPI_Init loads the core next to this file and, from then on,
 * MPI calls go to the core and libc calls that touch memory ask it to settle first. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <mpi.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include "intercept/shim/hook_mirror.h"
#include "intercept/shim/mpi_footprints.h"
#include "intercept/shim/range_set.h"
#include "intercept/shim/shim_api.h"

#define OVX_EXPORT __attribute__((visibility("default")))

static __thread struct ovx_thread_state tls __attribute__((tls_model("initial-exec")));
static int active_transfers;
static const struct ovx_core* _Atomic core;
/* Our munmap/mremap/madvise/mmap wrappers, as defined here (hidden aliases: a plain
 * reference would find the first definition, maybe a sanitizer's), which UCX may patch. */
static void* const hookable[OVX_HOOKABLE];

static atomic_uint_fast64_t last_serial;
/* Lock-free, so also in a signal handler. */
static struct ovx_thread_state* thread_state(void) {
  if (tls.serial == 0) tls.serial = atomic_fetch_add(&last_serial, 1) + 1;
  return &tls;
}

static void* next_symbol(const char* name) { return dlsym(RTLD_NEXT, name); }

/* Resolved on first use; a race only resolves the same pointer twice. */
#define NEXT(type, name)               \
  static __typeof__(type) next_##name; \
  if (__builtin_expect(next_##name == NULL, 0)) next_##name = (type)next_symbol(#name)

static const struct ovx_core* loaded_core(void) {
  return atomic_load_explicit(&core, memory_order_acquire);
}

static int transfers_in_flight(void) {
  return __atomic_load_n(&active_transfers, __ATOMIC_ACQUIRE) > 0;
}

/* ---- SIGSEGV: the core's handler first, the program's behind it ---------------------- */

static _Atomic int segv_installed;
/* Double buffer (0, 1): the handler reads without a lock. Entry 2 stays SIG_DFL: what an
 * SA_RESETHAND handler leaves behind, switched to from the handler with one store. */
static struct sigaction program_segv[3];
#define SEGV_DEFAULT_ENTRY 2
static _Atomic int program_segv_index;
static pthread_mutex_t program_segv_lock = PTHREAD_MUTEX_INITIALIZER;

static int real_sigaction(int sig, const struct sigaction* act, struct sigaction* old) {
  NEXT(int (*)(int, const struct sigaction*, struct sigaction*), sigaction);
  return next_sigaction(sig, act, old);
}

static void install_segv(void (*handler)(int, siginfo_t*, void*)) {
  pthread_mutex_lock(&program_segv_lock);
  if (!atomic_load(&segv_installed)) {
    struct sigaction ours;
    memset(&ours, 0, sizeof ours);
    ours.sa_sigaction = handler;
    ours.sa_flags = SA_SIGINFO | SA_RESTART | SA_ONSTACK;
    sigemptyset(&ours.sa_mask);
    struct sigaction previous;
    if (real_sigaction(SIGSEGV, &ours, &previous) == 0) {
      program_segv[0] = previous;
      atomic_store(&program_segv_index, 0);
      atomic_store(&segv_installed, 1);
    }
  }
  pthread_mutex_unlock(&program_segv_lock);
}

/* A fault that is not ours goes where it would have gone without us. */
static void chain_segv(int sig, siginfo_t* info, void* context) {
  int index = atomic_load(&program_segv_index);
  const struct sigaction a = program_segv[index];
  /* As the kernel does: a one-shot handler is replaced by the default before it runs, so
   * a crash handler that returns lets the re-executed instruction end the process. Only if
   * no sigaction() of another thread replaced it meanwhile (then that one stands). */
  if (a.sa_flags & SA_RESETHAND)
    atomic_compare_exchange_strong(&program_segv_index, &index, SEGV_DEFAULT_ENTRY);
  if (a.sa_flags & SA_SIGINFO) {
    if (a.sa_sigaction != NULL) {
      sigset_t old;
      pthread_sigmask(SIG_BLOCK, &a.sa_mask, &old);
      a.sa_sigaction(sig, info, context);
      pthread_sigmask(SIG_SETMASK, &old, NULL);
      return;
    }
  } else if (a.sa_handler == SIG_IGN && info != NULL && info->si_code <= 0) {
    return; /* kill(SIGSEGV) with SIG_IGN: ignored, as without us */
  } else if (a.sa_handler != SIG_DFL && a.sa_handler != SIG_IGN) {
    sigset_t old;
    pthread_sigmask(SIG_BLOCK, &a.sa_mask, &old);
    a.sa_handler(sig);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    return;
  }
  /* SIG_DFL, and SIG_IGN (the kernel does not let a fault be ignored either): restore
   * the default action and return, so the instruction faults again and the process ends
   * by SIGSEGV as it would have. Also for an signal sent by kill(): re-raise it. */
  struct sigaction dfl;
  memset(&dfl, 0, sizeof dfl);
  dfl.sa_handler = SIG_DFL;
  real_sigaction(SIGSEGV, &dfl, NULL);
  if (info != NULL && info->si_code <= 0) raise(SIGSEGV);
}

static void record_program_segv(const struct sigaction* act, struct sigaction* old) {
  pthread_mutex_lock(&program_segv_lock);
  const int i = atomic_load(&program_segv_index);
  if (old != NULL) *old = program_segv[i];
  if (act != NULL) {
    const int next = i == 0 ? 1 : 0; /* also from SEGV_DEFAULT_ENTRY, which stays as it is */
    program_segv[next] = *act;
    atomic_store(&program_segv_index, next);
  }
  pthread_mutex_unlock(&program_segv_lock);
}

OVX_EXPORT int sigaction(int sig, const struct sigaction* act, struct sigaction* old) {
  if (sig == SIGSEGV && atomic_load(&segv_installed)) {
    record_program_segv(act, old);
    return 0;
  }
  return real_sigaction(sig, act, old);
}

OVX_EXPORT sighandler_t signal(int sig, sighandler_t handler) {
  if (sig == SIGSEGV && atomic_load(&segv_installed)) {
    if (handler == SIG_ERR) {
      errno = EINVAL;
      return SIG_ERR;
    }
    struct sigaction act, old;
    memset(&act, 0, sizeof act);
    act.sa_handler = handler;
    act.sa_flags = SA_RESTART;
    sigemptyset(&act.sa_mask);
    record_program_segv(&act, &old);
    return (old.sa_flags & SA_SIGINFO) ? (sighandler_t)(void (*)(void))old.sa_sigaction
                                       : old.sa_handler;
  }
  NEXT(sighandler_t(*)(int, sighandler_t), signal);
  return next_signal(sig, handler);
}

/* ---- what the program set on its mappings, and the mappings it made ---------------
 * Received pages are moved into place only where nothing the program set lives in the
 * mapping (madvise advice, mlock, protection keys: a move would replace the mapping, and
 * with it these), and only into a whole mapping (move_gate.hpp). The kernel merges
 * neighbouring mappings, so which ranges the program mapped as one is recorded here, from
 * the start (the core comes at MPI_Init): mmap() adds, munmap() forgets what it removes,
 * mremap() carries both along. Once the record of marks is full, every page counts as
 * marked; a mapping not recorded is not moved into (a glibc heap block aside). */
static struct ovx_range mark_entries[256], mapping_entries[1024];
static struct ovx_range_set marks = {mark_entries, 256, 0, 0};
static struct ovx_range_set mappings = {mapping_entries, 1024, 0, 0};
static _Atomic int all_marked; /* mlockall() */

static void mark(const void* addr, size_t len) {
  ovx_ranges_add(&marks, (uintptr_t)addr, (uintptr_t)addr + len);
}

static int marked(uintptr_t lo, uintptr_t hi) {
  return atomic_load(&all_marked) || __atomic_load_n(&marks.overflowed, __ATOMIC_ACQUIRE) ||
         ovx_ranges_overlap(&marks, lo, hi);
}

static int mapped_whole(uintptr_t lo, uintptr_t hi) { return ovx_ranges_has(&mappings, lo, hi); }

static uintptr_t page_end(uintptr_t lo, size_t len) {
  static _Atomic uintptr_t page;
  uintptr_t p = atomic_load_explicit(&page, memory_order_relaxed);
  if (p == 0) atomic_store_explicit(&page, p = (uintptr_t)sysconf(_SC_PAGESIZE), memory_order_relaxed);
  return (lo + len + p - 1) & ~(p - 1);
}

/* Before an unmapping (the records go first: after it, another thread may already map
 * and mark the same addresses). Should the unmapping then fail, the caller marks the
 * range: what was set there may still be there. */
/* Changes that can turn an address the core's map of regions holds as private memory into
 * another kind (buffer_memory.hpp): counted, so the core reads /proc/self/maps again. */
static unsigned long map_changes;
static void map_changed(void) { __atomic_fetch_add(&map_changes, 1, __ATOMIC_RELEASE); }

static void unmapped(const void* addr, size_t len) {
  map_changed();
  const uintptr_t lo = (uintptr_t)addr, hi = page_end(lo, len);
  /* A mapping partly gone is no longer known whole; a mark applies to what is left. */
  ovx_ranges_forget_overlapping(&mappings, lo, hi);
  ovx_ranges_subtract(&marks, lo, hi);
}

/* After an mmap() that returned addr. Flags other than these leave something in the
 * mapping a move would not carry (MAP_LOCKED, MAP_GROWSDOWN, MAP_NORESERVE, MAP_STACK's
 * no-huge-page advice, MAP_HUGETLB, MAP_DROPPABLE, ...): the range counts as marked. */
static void mapped(const void* addr, size_t len, int flags) {
  const uintptr_t lo = (uintptr_t)addr, hi = page_end(lo, len);
  int plain = MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED | MAP_POPULATE;
#ifdef MAP_FIXED_NOREPLACE
  plain |= MAP_FIXED_NOREPLACE;
#endif
  if (!(flags & MAP_ANONYMOUS) || (flags & MAP_TYPE) != MAP_PRIVATE) {
    map_changed(); /* shared or file-backed: perhaps where private memory was unmapped */
    return;
  }
  if (flags & ~plain) ovx_ranges_add(&marks, lo, hi);
  /* A MAP_FIXED mapping may replace part of a larger one the kernel merges it back into
   * (a common way to discard pages): not a whole mapping of its own. */
  if (!(flags & MAP_FIXED)) ovx_ranges_add(&mappings, lo, hi);
}

/* After mremap(old, old_size, ..., flags) -> [moved, new_size). With MREMAP_DONTUNMAP the
 * old range stays mapped, as it was. */
static void remapped(const void* old, size_t old_size, const void* moved, size_t new_size,
                     int flags) {
  const uintptr_t lo = (uintptr_t)old, hi = page_end(lo, old_size);
  const int whole = mapped_whole(lo, hi), was_marked = marked(lo, hi);
#ifdef MREMAP_DONTUNMAP
  const int keep = (flags & MREMAP_DONTUNMAP) != 0;
#else
  const int keep = 0;
#endif
  if (!keep) unmapped(old, old_size);
  const uintptr_t to = (uintptr_t)moved;
  ovx_ranges_forget_overlapping(&mappings, to, page_end(to, new_size));  /* MREMAP_FIXED's */
  if (whole) ovx_ranges_add(&mappings, to, page_end(to, new_size));
  if (was_marked) mark(moved, new_size);
}

/* Advice that only acts once (frees, prefetches, pages out) leaves nothing in the mapping;
 * any other advice (fork and dump behaviour, huge pages, KSM, access pattern, guard
 * regions) stays with it. */
static int advice_lasts(int advice) {
  switch (advice) {
    case MADV_NORMAL:
    case MADV_WILLNEED:
    case MADV_DONTNEED:
#ifdef MADV_FREE
    case MADV_FREE:
#endif
#ifdef MADV_REMOVE
    case MADV_REMOVE:
#endif
#ifdef MADV_COLD
    case MADV_COLD:
    case MADV_PAGEOUT:
#endif
#ifdef MADV_POPULATE_READ
    case MADV_POPULATE_READ:
    case MADV_POPULATE_WRITE:
#endif
      return 0;
    default:
      return 1;
  }
}

static void advised(const void* addr, size_t len, int advice) {
  if (advice_lasts(advice)) mark(addr, len);
}

/* ---- MPI ------------------------------------------------------------------------------ */

static void mirror_memory_hooks(struct ovx_hook_mirror* state);
static struct ovx_straight straight; /* filled by the core (straight_path.h) */

static const struct ovx_shim shim = {
    .abi = OVX_SHIM_ABI,
    .active = &active_transfers,
    .thread_state = thread_state,
    .install_segv = install_segv,
    .chain_segv = chain_segv,
    .next = next_symbol,
    .marked = marked,
    .mapped_whole = mapped_whole,
    .advised = advised,
    .mapped = mapped,
    .unmapped = unmapped,
    .remapped = remapped,
    .mirror_memory_hooks = mirror_memory_hooks,
    .straight = &straight,
    .map_changes = &map_changes,
};

/* The core sits next to this file (build tree and installed tree alike). */
static const struct ovx_core* load_core(void) {
  const char* off = getenv("OVERLAP_INTERCEPT");
  if (off != NULL && strcmp(off, "off") == 0) return NULL;
  Dl_info self;
  if (dladdr((void*)&load_core, &self) == 0 || self.dli_fname == NULL) return NULL;
  char path[PATH_MAX];
  const char* slash = strrchr(self.dli_fname, '/');
  const int dir = slash == NULL ? 0 : (int)(slash - self.dli_fname + 1);
  if (snprintf(path, sizeof path, "%.*sliboverlap-intercept-core.so", dir, self.dli_fname) >=
      (int)sizeof path)
    return NULL;
  void* handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (handle == NULL) {
    fprintf(stderr, "overlap-run: cannot load %s: %s; running without interception\n", path,
            dlerror());
    return NULL;
  }
  const struct ovx_core* (*start)(const struct ovx_shim*) =
      (const struct ovx_core* (*)(const struct ovx_shim*))dlsym(handle, "ovx_intercept_core_start");
  return start == NULL ? NULL : start(&shim);
}

__attribute__((visibility("hidden"))) extern int (*ovx_pnext_MPI_Init)(int*, char***);
__attribute__((visibility("hidden"))) extern int (*ovx_pnext_MPI_Init_thread)(int*, char***, int,
                                                                              int*);

/* MPI_Init came through the shim (unreached.c: then a core that did not load said why). */
__attribute__((visibility("hidden"))) int ovx_init_seen;

static int init_common(int* argc, char*** argv, int required, int* provided, int thread_form) {
  ovx_init_seen = 1;
  const struct ovx_core* c = loaded_core();
  if (c == NULL) {
    c = load_core();
    if (c != NULL) atomic_store_explicit(&core, c, memory_order_release);
  }
  if (c != NULL) return c->init(argc, argv, required, provided, thread_form);
  /* Without the core: MPI's, as PMPI_ where the call came in so (fortran_entry.c). */
  const int via_pmpi = tls.via_pmpi;
  int rc;
  if (thread_form) {
    NEXT(int (*)(int*, char***, int, int*), MPI_Init_thread);
    rc = via_pmpi && ovx_pnext_MPI_Init_thread != NULL
             ? ovx_pnext_MPI_Init_thread(argc, argv, required, provided)
             : next_MPI_Init_thread(argc, argv, required, provided);
  } else {
    NEXT(int (*)(int*, char***), MPI_Init);
    rc = via_pmpi && ovx_pnext_MPI_Init != NULL ? ovx_pnext_MPI_Init(argc, argv)
                                                : next_MPI_Init(argc, argv);
  }
  /* Without the core too (--off): UCX may have put its hooks on our wrappers. */
  ovx_mirror_memory_hooks(hookable);
  return rc;
}

/* Lets a program (overlap-bench p2p, tests) see that it runs under overlap-run: 1 once
 * MPI_Init loaded the core. Looked up with dlsym(RTLD_DEFAULT, ...); the core itself is
 * loaded locally and not visible that way. */
OVX_EXPORT int overlap_intercept_loaded(void) { return loaded_core() != NULL; }

/* 1 while calls are really intercepted: loaded, initialised, not --off, engine running
 * (a loaded core can still run "without interception"). */
OVX_EXPORT int overlap_intercept_active(void) {
  const struct ovx_core* c = loaded_core();
  return c != NULL && c->active != NULL && c->active();
}

/* What overlap-bench p2p records about the interception (the core's answers): calls
 * deferred since MPI_Init (0 without the core); while active, the smallest message
 * deferred in bytes (else -1), the progress policy in effect (caller, shared, dedicated)
 * and the call families deferred (--defer's text) (else NULL). */
OVX_EXPORT long overlap_intercept_deferred(void) {
  const struct ovx_core* c = loaded_core();
  return c != NULL && c->deferred != NULL ? c->deferred() : 0;
}
OVX_EXPORT long overlap_intercept_min_size(void) {
  const struct ovx_core* c = loaded_core();
  return c != NULL && c->min_size != NULL ? c->min_size() : -1;
}
OVX_EXPORT const char* overlap_intercept_policy(void) {
  const struct ovx_core* c = loaded_core();
  return c != NULL && c->policy != NULL ? c->policy() : NULL;
}
OVX_EXPORT const char* overlap_intercept_defer(void) {
  const struct ovx_core* c = loaded_core();
  return c != NULL && c->families != NULL ? c->families() : NULL;
}

OVX_EXPORT int MPI_Init(int* argc, char*** argv) {
  tls.in_mpi++;
  const int rc = init_common(argc, argv, MPI_THREAD_SINGLE, NULL, 0);
  tls.in_mpi--;
  return rc;
}

OVX_EXPORT int MPI_Init_thread(int* argc, char*** argv, int required, int* provided) {
  tls.in_mpi++;
  const int rc = init_common(argc, argv, required, provided, 1);
  tls.in_mpi--;
  return rc;
}

/* Whether the shim serves a small MPI_Send/MPI_Recv the core would send straight to MPI
 * (straight_path.h), and if so counts it on the calling thread's counters of its site:
 * when the core has registered them and the call is below --min-size for no earlier
 * reason (the core's order: family switched off, MPI_PROC_NULL, a wildcard receive whose
 * status is wanted, then the size; the callers check the middle two). Else 0, and the
 * core decides. */
static int straight_counted(int call, int family_on, int count, MPI_Datatype type) {
  if (!__atomic_load_n(&straight.on, __ATOMIC_ACQUIRE) || !family_on || transfers_in_flight())
    return 0;
  const int64_t n = ovx_straight_bytes(&straight, count, type);
  if (n < 0 || (n != 0 && (uint64_t)n >= straight.min_bytes)) return 0;
  struct ovx_site_counters* c = ovx_site_cached(&tls.site_cache, straight.sites_owner,
                                                ovx_site_key(call, (uintptr_t)tls.site));
  if (c == NULL) return 0;
  ovx_count_call(c, (uint64_t)n);
  ovx_count_straight(c, OVX_REASON_BELOW_THRESHOLD);
  return 1;
}

/* The program's call site of a call returning to `ret` (fortran_entry.c). */
__attribute__((visibility("hidden"))) const void* ovx_call_site(const void* ret);

/* Each returns the function that serves the call (MPI's PMPI_ one, as the core calls it,
 * so a profiling library sees the same calls whoever decides), or NULL for the core. */
typedef int (*send_fn)(const void*, int, MPI_Datatype, int, int, MPI_Comm);
typedef int (*recv_fn)(void*, int, MPI_Datatype, int, int, MPI_Comm, MPI_Status*);

static send_fn straight_MPI_Send(const void* buf, int count, MPI_Datatype type, int dest, int tag,
                                 MPI_Comm comm) {
  (void)buf, (void)tag, (void)comm;
  if (dest == MPI_PROC_NULL || !straight_counted(OVX_CALL_SEND, straight.send, count, type))
    return NULL;
  NEXT(send_fn, PMPI_Send);
  return next_PMPI_Send;
}

static recv_fn straight_MPI_Recv(void* buf, int count, MPI_Datatype type, int source, int tag,
                                 MPI_Comm comm, MPI_Status* status) {
  (void)buf, (void)comm;
  const int wildcard = source == MPI_ANY_SOURCE || tag == MPI_ANY_TAG;
  if (source == MPI_PROC_NULL || (status != MPI_STATUS_IGNORE && wildcard) ||
      !straight_counted(OVX_CALL_RECV, straight.recv, count, type))
    return NULL;
  NEXT(recv_fn, PMPI_Recv);
  return next_PMPI_Recv;
}

/* What runs before MPI's own function, by the entry's kind (mpi_functions.def). A fence
 * waits only for what the call can observe: the calling thread's deferred transfers and
 * those conflicting with the call's buffers (mpi_footprints.h, one entry per FENCE
 * function), or every transfer where the buffers cannot be told. */
#define BEFORE_CORE(c, name) (void)0
#define BEFORE_STRAIGHT(c, name) (void)0
#define BEFORE_POLL(c, name) \
  if (c->poll != NULL) c->poll()
#define BEFORE_FENCE(c, name) \
  if (transfers_in_flight()) OVX_FOOTPRINT_##name(c)
/* An EXPOSE call hands memory to MPI beyond its own return (a window, MPI_Alloc_mem): the
 * core learns of it on every call, then fences as a FENCE entry. */
#define BEFORE_EXPOSE(c, name) \
  c->expose();                 \
  BEFORE_FENCE(c, name)

/* A *_REQ entry returns a request that holds the call's buffers beyond its return: once
 * MPI accepted the call (its arguments are valid then), the footprint is taken again and
 * recorded under the request (runtime/program_requests.hpp). */
#define BEFORE_FENCE_REQ(c, name) BEFORE_FENCE(c, name)
#define BEFORE_EXPOSE_REQ(c, name) BEFORE_EXPOSE(c, name)
#define BEFORE_ROUTE_REQ(c, name) BEFORE_FENCE(c, name)
#define BEFORE_ROUTE(c, name) BEFORE_FENCE(c, name)
#define BEFORE_MAKES_COMM(c, name) (void)0
#define AFTER_CORE(c, name) (void)0
#define AFTER_STRAIGHT(c, name) (void)0
#define AFTER_POLL(c, name) (void)0
#define AFTER_FENCE(c, name) (void)0
#define AFTER_EXPOSE(c, name) (void)0
#define AFTER_REQ(c, name, persistent)                            \
  if (rc == MPI_SUCCESS) {                                       \
    c->request_begin();                                          \
    OVX_FOOTPRINT_##name(c);                                     \
    c->request_end(rc, (const MPI_Request*)request, persistent); \
  }
#define AFTER_FENCE_REQ(c, name) AFTER_REQ(c, name, 0)
#define AFTER_EXPOSE_REQ(c, name) AFTER_REQ(c, name, 1)
#define AFTER_ROUTE_REQ(c, name) AFTER_REQ(c, name, 0)
#define AFTER_ROUTE(c, name) (void)0
#define AFTER_MAKES_COMM(c, name) \
  if (outermost && rc == MPI_SUCCESS && c->comm_made != NULL) c->comm_made(newcomm)

/* The function that serves the call when the shim decides it itself, by kind (NULL: the
 * core decides): only STRAIGHT entries may. */
#define SERVES_CORE(name, params, args) ((int(*) params)NULL)
#define SERVES_STRAIGHT(name, params, args) straight_##name args
#define SERVES_FENCE(name, params, args) ((int(*) params)NULL)
#define SERVES_EXPOSE(name, params, args) ((int(*) params)NULL)
#define SERVES_POLL(name, params, args) ((int(*) params)NULL)
#define SERVES_FENCE_REQ(name, params, args) ((int(*) params)NULL)
#define SERVES_EXPOSE_REQ(name, params, args) ((int(*) params)NULL)
#define SERVES_ROUTE_REQ(name, params, args) ((int(*) params)NULL)
#define SERVES_ROUTE(name, params, args) ((int(*) params)NULL)
#define SERVES_MAKES_COMM(name, params, args) ((int(*) params)NULL)

/* Who serves the call after the fence: MPI's function `f`, or for a ROUTE(_REQ) entry the
 * core's router when the core has one (it picks liboverlap's collective or MPI's). Only
 * the program's own calls are routed (and get a communicator's duplicate, MAKES_COMM):
 * not those MPI makes inside another call (ROMIO's MPI_Comm_dup in MPI_File_open), which
 * run the same way on every rank. */
#define ROUTE_CORE(c, name, f) (void)0
#define ROUTE_STRAIGHT(c, name, f) (void)0
#define ROUTE_FENCE(c, name, f) (void)0
#define ROUTE_EXPOSE(c, name, f) (void)0
#define ROUTE_POLL(c, name, f) (void)0
#define ROUTE_FENCE_REQ(c, name, f) (void)0
#define ROUTE_EXPOSE_REQ(c, name, f) (void)0
#define ROUTE_MAKES_COMM(c, name, f) (void)0
#define ROUTE_ROUTE_REQ(c, name, f) \
  if (c != NULL && outermost && c->route.name != NULL) f = c->route.name
#define ROUTE_ROUTE(c, name, f) ROUTE_ROUTE_REQ(c, name, f)

/* MPI's PMPI_ functions (fortran_entry.c): where a call came in under its PMPI_ name. */
#define X(kind, name, params, args) \
  __attribute__((visibility("hidden"))) extern int(*ovx_pnext_##name) params;
#include "intercept/shim/mpi_functions.def"
#undef X

#define X(kind, name, params, args)                                        \
  OVX_EXPORT int name params {                                             \
    struct ovx_thread_state* t = &tls;                                     \
    const int via_pmpi = t->via_pmpi;                                      \
    t->via_pmpi = 0;                                                       \
    const int outermost = t->in_mpi++ == 0;                                \
    (void)outermost;                                                       \
    if (outermost)                                                         \
      t->site = t->binding_site ? t->binding_site : ovx_call_site(__builtin_return_address(0)); \
    const struct ovx_core* c = loaded_core();                              \
    const int core_has = c != NULL && c->name != NULL;                     \
    int(*direct) params = core_has ? SERVES_##kind(name, params, args) : NULL; \
    int rc;                                                                \
    if (direct != NULL) {                                                  \
      rc = direct args;                                                    \
    } else if (core_has) {                                                 \
      rc = c->name args;                                                   \
    } else {                                                               \
      if (c != NULL) {                                                     \
        BEFORE_##kind(c, name);                                            \
      }                                                                    \
      NEXT(int(*) params, name);                                           \
      int(*serve) params =                                                 \
          via_pmpi && ovx_pnext_##name != NULL ? ovx_pnext_##name : next_##name; \
      ROUTE_##kind(c, name, serve);                                        \
      rc = serve args;                                                     \
      if (c != NULL) {                                                     \
        AFTER_##kind(c, name);                                             \
      }                                                                    \
    }                                                                      \
    t->in_mpi--;                                                           \
    return rc;                                                             \
  }
#include "intercept/shim/mpi_functions.def"
#undef X

/* The wrappers above under names of the shim's own, for its PMPI_ entries (fortran_entry.c):
 * a call through the exported name could land on a program's own MPI_ function. */
#define X(kind, name, params, args) \
  extern __typeof__(name) ovx_own_##name __attribute__((alias(#name), visibility("hidden")));
#include "intercept/shim/mpi_functions.def"
#undef X
extern __typeof__(MPI_Init) ovx_own_MPI_Init __attribute__((alias("MPI_Init"), visibility("hidden")));
extern __typeof__(MPI_Init_thread) ovx_own_MPI_Init_thread
    __attribute__((alias("MPI_Init_thread"), visibility("hidden")));

/* This thread's state, for the shim's other files. */
__attribute__((visibility("hidden"))) struct ovx_thread_state* ovx_shim_thread(void) {
  return &tls;
}

/* ---- libc calls that touch memory ------------------------------------------------------
 * The kernel does not fault on protected pages: read() into a no-access receive buffer
 * returns EFAULT. So before such a call the transfers covering the range complete. The
 * direction matters: writing *from* a read-only (send) page is fine, so calls that only
 * read user memory settle no-access pages only; MPI's own socket writes from a send
 * buffer in flight must never wait for that very send. */

/* liboverlap's progress thread calls MPI directly (not through these wrappers): all its
 * libc calls come from inside MPI. Known by its name, which it sets first thing (a new
 * thread inherits its creator's name, and no program thread is named so). */
static int on_engine_thread(void) {
  if (tls.kind == 0) {
    char name[16] = "";
    pthread_getname_np(pthread_self(), name, sizeof name);
    tls.kind = strncmp(name, OVX_ENGINE_THREAD_NAME, sizeof name) == 0 ? 2 : 1;
  }
  return tls.kind == 2;
}

/* Inside an interposed MPI call the core has settled the call's buffers already, and
 * MPI's own I/O (sockets, shared memory) is on its own memory: no check, no wait (a wait
 * there could re-enter MPI). The same holds for the progress thread, which would wait
 * for transfers only it completes. */
static int should_settle(void) {
  return tls.in_mpi == 0 && transfers_in_flight() && !on_engine_thread();
}

static void settle(const void* addr, size_t len, int write) {
  if (len == 0 || !should_settle()) return;
  const struct ovx_core* c = loaded_core();
  if (c != NULL) c->settle(addr, len, write);
}

static void settle_iov(const struct iovec* iov, int n, int write) {
  if (!should_settle() || iov == NULL) return;
  for (int i = 0; i < n; i++) settle(iov[i].iov_base, iov[i].iov_len, write);
}

OVX_EXPORT ssize_t read(int fd, void* buf, size_t n) {
  settle(buf, n, 1);
  NEXT(ssize_t(*)(int, void*, size_t), read);
  return next_read(fd, buf, n);
}
OVX_EXPORT ssize_t write(int fd, const void* buf, size_t n) {
  settle(buf, n, 0);
  NEXT(ssize_t(*)(int, const void*, size_t), write);
  return next_write(fd, buf, n);
}
OVX_EXPORT ssize_t pread(int fd, void* buf, size_t n, off_t off) {
  settle(buf, n, 1);
  NEXT(ssize_t(*)(int, void*, size_t, off_t), pread);
  return next_pread(fd, buf, n, off);
}
OVX_EXPORT ssize_t pwrite(int fd, const void* buf, size_t n, off_t off) {
  settle(buf, n, 0);
  NEXT(ssize_t(*)(int, const void*, size_t, off_t), pwrite);
  return next_pwrite(fd, buf, n, off);
}
OVX_EXPORT ssize_t readv(int fd, const struct iovec* iov, int n) {
  settle_iov(iov, n, 1);
  NEXT(ssize_t(*)(int, const struct iovec*, int), readv);
  return next_readv(fd, iov, n);
}
OVX_EXPORT ssize_t writev(int fd, const struct iovec* iov, int n) {
  settle_iov(iov, n, 0);
  NEXT(ssize_t(*)(int, const struct iovec*, int), writev);
  return next_writev(fd, iov, n);
}
OVX_EXPORT ssize_t recv(int fd, void* buf, size_t n, int flags) {
  settle(buf, n, 1);
  NEXT(ssize_t(*)(int, void*, size_t, int), recv);
  return next_recv(fd, buf, n, flags);
}
OVX_EXPORT ssize_t send(int fd, const void* buf, size_t n, int flags) {
  settle(buf, n, 0);
  NEXT(ssize_t(*)(int, const void*, size_t, int), send);
  return next_send(fd, buf, n, flags);
}
OVX_EXPORT ssize_t recvfrom(int fd, void* buf, size_t n, int flags, struct sockaddr* from,
                            socklen_t* len) {
  settle(buf, n, 1);
  NEXT(ssize_t(*)(int, void*, size_t, int, struct sockaddr*, socklen_t*), recvfrom);
  return next_recvfrom(fd, buf, n, flags, from, len);
}
OVX_EXPORT ssize_t sendto(int fd, const void* buf, size_t n, int flags, const struct sockaddr* to,
                          socklen_t len) {
  settle(buf, n, 0);
  NEXT(ssize_t(*)(int, const void*, size_t, int, const struct sockaddr*, socklen_t), sendto);
  return next_sendto(fd, buf, n, flags, to, len);
}
OVX_EXPORT size_t fread(void* buf, size_t size, size_t n, FILE* f) {
  if (size != 0 && n <= SIZE_MAX / size) settle(buf, size * n, 1);
  NEXT(size_t(*)(void*, size_t, size_t, FILE*), fread);
  return next_fread(buf, size, n, f);
}
OVX_EXPORT size_t fwrite(const void* buf, size_t size, size_t n, FILE* f) {
  if (size != 0 && n <= SIZE_MAX / size) settle(buf, size * n, 0);
  NEXT(size_t(*)(const void*, size_t, size_t, FILE*), fwrite);
  return next_fwrite(buf, size, n, f);
}

/* Memory that goes away or changes under a transfer in flight: after MPI_Send returned,
 * free(buf) is legal, and the allocator may unmap or reuse the pages MPI still reads.
 * The next free/realloc is whatever allocator the program runs with (glibc, jemalloc,
 * tcmalloc, a sanitizer's), found when the shim is loaded. A free() while dlsym() itself
 * runs (before that) leaks its block: handing it to the wrong allocator would be worse. */
extern void* __libc_realloc(void*, size_t);
static void (*_Atomic next_free)(void*);
static void* (*_Atomic next_realloc)(void*, size_t);
static _Atomic int resolving_allocator;

static void resolve_allocator(void) {
  if (atomic_exchange(&resolving_allocator, 1)) return;
  atomic_store(&next_realloc, (void* (*)(void*, size_t))next_symbol("realloc"));
  atomic_store(&next_free, (void (*)(void*))next_symbol("free"));
}

typedef void* (*mmap_fn)(void*, size_t, int, int, int, off_t);
static mmap_fn next_mmap(void);
__attribute__((constructor)) static void shim_loaded(void) {
  resolve_allocator();
  next_mmap();
}

static void settle_block(void* p) {
  if (p != NULL && should_settle()) {
    const struct ovx_core* c = loaded_core();
    if (c != NULL) c->settle_free(p);
  }
}

OVX_EXPORT void free(void* p) {
  settle_block(p);
  void (*f)(void*) = atomic_load_explicit(&next_free, memory_order_acquire);
  if (f == NULL) {
    resolve_allocator();
    f = atomic_load_explicit(&next_free, memory_order_acquire);
  }
  if (f != NULL) f(p);
}
OVX_EXPORT void* realloc(void* p, size_t n) {
  settle_block(p);
  void* (*f)(void*, size_t) = atomic_load_explicit(&next_realloc, memory_order_acquire);
  if (f == NULL) {
    resolve_allocator();
    f = atomic_load_explicit(&next_realloc, memory_order_acquire);
  }
  return f != NULL ? f(p, n) : __libc_realloc(p, n);
}
OVX_EXPORT int munmap(void* addr, size_t len) {
  settle(addr, len, 1);
  unmapped(addr, len);
  NEXT(int (*)(void*, size_t), munmap);
  const int rc = next_munmap(addr, len);
  if (rc != 0) mark(addr, len);  /* the records went first: err on the safe side */
  return rc;
}
OVX_EXPORT void* mremap(void* old, size_t old_size, size_t new_size, int flags, ...) {
  settle(old, old_size, 1);
  void* new_address = NULL;
  if (flags & MREMAP_FIXED) {
    va_list ap;
    va_start(ap, flags);
    new_address = va_arg(ap, void*);
    va_end(ap);
    settle(new_address, new_size, 1);
  }
  NEXT(void* (*)(void*, size_t, size_t, int, ...), mremap);
  void* moved = next_mremap(old, old_size, new_size, flags, new_address);
  if (moved != MAP_FAILED) remapped(old, old_size, moved, new_size, flags);
  return moved;
}
/* dlsym() may allocate (glibc < 2.34 did in every lookup), and an allocator may map
 * memory for it (jemalloc, tcmalloc): an mmap() made on a thread while it looks up the next
 * mmap is made as the system call. Looked up in the constructor too, before most such. */
static mmap_fn _Atomic next_mmap_fn;
static __thread int resolving_mmap __attribute__((tls_model("initial-exec")));
static mmap_fn next_mmap(void) {
  mmap_fn f = atomic_load_explicit(&next_mmap_fn, memory_order_acquire);
  if (__builtin_expect(f != NULL || resolving_mmap, 1)) return f;
  resolving_mmap = 1;
  f = (mmap_fn)next_symbol("mmap");
  atomic_store_explicit(&next_mmap_fn, f, memory_order_release);
  resolving_mmap = 0;
  return f;
}

/* mmap64 is the same function on LP64; both names are interposed. */
static void* map_pages(void* addr, size_t len, int prot, int flags, int fd, off_t offset) {
  if (flags & MAP_FIXED) { /* it replaces whatever was there */
    settle(addr, len, 1);
    unmapped(addr, len);
  }
  void* (*next)(void*, size_t, int, int, int, off_t) = next_mmap();
  void* p = next != NULL ? next(addr, len, prot, flags, fd, offset)
                         : (void*)syscall(SYS_mmap, addr, len, (long)prot, (long)flags,
                                          (long)fd, (long)offset);
  if (p != MAP_FAILED) {
    mapped(p, len, flags);
  } else if (flags & MAP_FIXED) {
    mark(addr, len);  /* the records went first: err on the safe side */
  }
  return p;
}
OVX_EXPORT void* mmap(void* addr, size_t len, int prot, int flags, int fd, off_t offset) {
  return map_pages(addr, len, prot, flags, fd, offset);
}
OVX_EXPORT void* mmap64(void* addr, size_t len, int prot, int flags, int fd, off_t offset) {
  return map_pages(addr, len, prot, flags, fd, offset);
}
OVX_EXPORT int madvise(void* addr, size_t len, int advice) {
  settle(addr, len, 1);
  advised(addr, len, advice);
  NEXT(int (*)(void*, size_t, int), madvise);
  return next_madvise(addr, len, advice);
}
extern __typeof__(munmap) munmap_here
    __attribute__((alias("munmap"), copy(munmap), visibility("hidden")));
extern __typeof__(mremap) mremap_here
    __attribute__((alias("mremap"), copy(mremap), visibility("hidden")));
extern __typeof__(madvise) madvise_here
    __attribute__((alias("madvise"), copy(madvise), visibility("hidden")));
extern __typeof__(mmap) mmap_here
    __attribute__((alias("mmap"), copy(mmap), visibility("hidden")));
static void* const hookable[OVX_HOOKABLE] = {(void*)munmap_here, (void*)mremap_here,
                                             (void*)madvise_here, (void*)mmap_here};

static void mirror_memory_hooks(struct ovx_hook_mirror* state) {
  ovx_mirror_memory_hooks(hookable);
  *state = ovx_memory_hooks();
}

OVX_EXPORT int posix_madvise(void* addr, size_t len, int advice) {
  settle(addr, len, 1);
  if (advice == POSIX_MADV_SEQUENTIAL || advice == POSIX_MADV_RANDOM) mark(addr, len);
  NEXT(int (*)(void*, size_t, int), posix_madvise);
  return next_posix_madvise(addr, len, advice);
}
/* A lock or key set on pages a receive holds would go with the mapping a move replaces:
 * the receive completes first. */
OVX_EXPORT int mlock(const void* addr, size_t len) {
  settle(addr, len, 1);
  mark(addr, len);
  NEXT(int (*)(const void*, size_t), mlock);
  return next_mlock(addr, len);
}
OVX_EXPORT int mlock2(const void* addr, size_t len, unsigned int flags) {
  settle(addr, len, 1);
  mark(addr, len);
  NEXT(int (*)(const void*, size_t, unsigned int), mlock2);
  return next_mlock2(addr, len, flags);
}
OVX_EXPORT int mlockall(int flags) {
  atomic_store(&all_marked, 1);
  const struct ovx_core* c = loaded_core();
  if (c != NULL && should_settle()) c->fence();
  NEXT(int (*)(int), mlockall);
  return next_mlockall(flags);
}
OVX_EXPORT int pkey_mprotect(void* addr, size_t len, int prot, int pkey) {
  settle(addr, len, 1);
  mark(addr, len);
  NEXT(int (*)(void*, size_t, int, int), pkey_mprotect);
  return next_pkey_mprotect(addr, len, prot, pkey);
}
OVX_EXPORT int mprotect(void* addr, size_t len, int prot) {
  settle(addr, len, 1);
  NEXT(int (*)(void*, size_t, int), mprotect);
  const int rc = next_mprotect(addr, len, prot);
  /* UCX's bistro ends a patch of our code by making it executable again (hook_mirror.h). */
  if (rc == 0 && (prot & PROT_EXEC) && ovx_covers_wrapper(hookable, addr, len))
    ovx_mirror_memory_hooks(hookable);
  return rc;
}
