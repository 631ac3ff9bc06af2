/* The PMPI_ names of the functions the shim interposes, for Fortran programs' calls (issue
 * 25, item 4) and for completions the program makes past overlap-run.
 *
 * The Fortran bindings convert their arguments (handles, statuses, MPI_IN_PLACE,
 * MPI_BOTTOM, MPI_STATUS_IGNORE) and then call MPI's C functions, but not always the names
 * the shim defines: Open MPI's bindings (mpif.h, `use mpi`, `use mpi_f08`) call PMPI_
 * names only, and MPICH's mpi_f08 calls PMPI_ names for the routines without a buffer
 * (MPI_Init, MPI_Finalize, the Wait/Test families...) while its buffer routines and its
 * mpif.h/`use mpi` bindings call the MPI_ names.
 *
 * So the shim also defines PMPI_X for every MPI_X it interposes (and PMPI_Init,
 * PMPI_Init_thread). Who called decides (by return address):
 *  - a Fortran bindings library (Open MPI's libmpi_mpifh, libmpi_usempif08,
 *    libmpi_usempi*; MPICH's libmpichfort or libmpifort): the program's call; it goes to
 *    the shim's own MPI_X, as a C program's call would;
 *  - for the request-completing calls (kind POLL: the Wait/Test families,
 *    MPI_Request_free, MPI_Cancel...), anyone but overlap-run's own objects and MPI's
 *    library (a program or a tool that calls PMPI_Wait itself): the shim's MPI_X too, so
 *    the core sees the completion (else the program's request would stay counted
 *    outstanding, and its memory held, after MPI completed it);
 *  - everyone else (the core, liboverlap, MPI's internals such as ROMIO, a program's own
 *    PMPI_Send to get past overlap-run): MPI's PMPI_X at once.
 * What the shim then passes on to MPI goes to MPI's PMPI_X (thread state via_pmpi), never
 * to another library's MPI_X (a profiling tool would count the call twice).
 *
 * MPI's functions are looked up when the shim is loaded, again at MPI_Init, and, where
 * MPI is not in the global scope (a plugin that dlopen()s libmpi with RTLD_LOCAL, as
 * Python modules are loaded), in the loaded libraries one by one. docs/overlap-run.md,
 * "Fortran". */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <execinfo.h>
#include <link.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "intercept/shim/shim_api.h"

#define OVX_EXPORT __attribute__((visibility("default")))
#define OVX_HIDDEN __attribute__((visibility("hidden")))

OVX_HIDDEN struct ovx_thread_state* ovx_shim_thread(void); /* preload_shim.c */

/* ---- who called: address ranges ------------------------------------------------------- */

enum { kMaxRanges = 16 };
struct range {
  uintptr_t lo, hi;
};
struct ranges {
  struct range r[kMaxRanges];
  int n;
};
/* Fortran bindings; overlap-run's own objects and MPI's library; the shim itself. */
static struct ranges fortran, ours;
static struct range own;
static uintptr_t own_base, mpi_base;
/* With --report, a Fortran call's site is the program's line (unwound), else the binding's. */
static int unwind_sites;

static int has_prefix(const char* path, const char* const* names, size_t n) {
  const char* base = strrchr(path, '/');
  base = base != NULL ? base + 1 : path;
  for (size_t i = 0; i < n; ++i)
    if (strncmp(base, names[i], strlen(names[i])) == 0) return 1;
  return 0;
}

static int is_binding_library(const char* path) {
  static const char* const names[] = {"libmpi_mpifh.so",   "libmpi_usempif08.so",
                                      "libmpi_usempi_ignore_tkr.so", "libmpi_usempi.so",
                                      "libmpichfort.so",   "libmpifort.so"};
  return has_prefix(path, names, sizeof names / sizeof names[0]);
}

static int is_our_library(const char* path) {
  static const char* const names[] = {"liboverlap-intercept-core.so", "liboverlap.so"};
  return has_prefix(path, names, sizeof names / sizeof names[0]);
}

static void add_segments(struct dl_phdr_info* info, struct ranges* to, struct range* one) {
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr)* ph = &info->dlpi_phdr[i];
    if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X)) continue;
    const struct range r = {info->dlpi_addr + ph->p_vaddr,
                            info->dlpi_addr + ph->p_vaddr + ph->p_memsz};
    if (one != NULL)
      *one = r;
    else if (to->n < kMaxRanges)
      to->r[to->n++] = r;
  }
}

/* Fills found[0] (Fortran bindings) and found[1] (ours and MPI's), and `own`. */
static int note_library(struct dl_phdr_info* info, size_t size, void* data) {
  (void)size;
  struct ranges* found = data;
  const char* name = info->dlpi_name != NULL ? info->dlpi_name : "";
  if (info->dlpi_addr == own_base)
    add_segments(info, NULL, &own);
  else if (is_binding_library(name))
    add_segments(info, &found[0], NULL);
  else if (is_our_library(name) || (mpi_base != 0 && info->dlpi_addr == mpi_base))
    add_segments(info, &found[1], NULL);
  return 0;
}

static int within(const struct ranges* set, uintptr_t a) {
  const int n = __atomic_load_n(&set->n, __ATOMIC_ACQUIRE);
  for (int i = 0; i < n; ++i)
    if (a >= set->r[i].lo && a < set->r[i].hi) return 1;
  return 0;
}

static int from_fortran(const void* ret) { return within(&fortran, (uintptr_t)ret); }

/* Whether a PMPI_ call returning to `ret` is one the shim serves as the program's:
 * `completes` for the request-completing calls (kind POLL). */
static int programs_call(const void* ret, int completes) {
  const uintptr_t a = (uintptr_t)ret;
  if (within(&fortran, a)) return 1;
  return completes && ours.n > 0 && !within(&ours, a) && !(a >= own.lo && a < own.hi);
}

/* ---- MPI's own functions ------------------------------------------------------------- */

/* A loaded library that defines `name`, other than the shim: where MPI is not in the
 * global scope, dlsym(RTLD_NEXT) cannot see it. */
struct search {
  const char* name;
  void* found;
};
static int search_library(struct dl_phdr_info* info, size_t size, void* data) {
  (void)size;
  struct search* s = data;
  if (info->dlpi_addr == own_base || info->dlpi_name == NULL || info->dlpi_name[0] == '\0')
    return 0;
  void* h = dlopen(info->dlpi_name, RTLD_LAZY | RTLD_NOLOAD);
  if (h == NULL) return 0;
  void* f = dlsym(h, s->name);
  dlclose(h);
  if (f == NULL || ((uintptr_t)f >= own.lo && (uintptr_t)f < own.hi)) return 0;
  s->found = f;
  return 1;
}

static void* mpi_symbol(const char* name) {
  void* f = dlsym(RTLD_NEXT, name);
  if (f != NULL) return f;
  struct search s = {name, NULL};
  dl_iterate_phdr(search_library, &s);
  return s.found;
}

/* One pointer per entry (hidden: preload_shim.c passes calls that came in as PMPI_ on;
 * liboverlap's entries have none: NULL). */
#define X(kind, name, params, args) OVX_HIDDEN int(*ovx_pnext_##name) params;
#include "intercept/shim/mpi_functions.def"
#undef X
OVX_HIDDEN int (*ovx_pnext_MPI_Init)(int*, char***);
OVX_HIDDEN int (*ovx_pnext_MPI_Init_thread)(int*, char***, int, int*);
#define pnext_init ovx_pnext_MPI_Init
#define pnext_init_thread ovx_pnext_MPI_Init_thread

#define OVX_MPI_FUNCTIONS_ONLY
static void resolve_pmpi(void) {
#define X(kind, name, params, args) \
  if (ovx_pnext_##name == NULL) ovx_pnext_##name = (int(*) params)mpi_symbol("P" #name);
#include "intercept/shim/mpi_functions.def"
#undef X
  if (pnext_init == NULL) pnext_init = (int (*)(int*, char***))mpi_symbol("PMPI_Init");
  if (pnext_init_thread == NULL)
    pnext_init_thread = (int (*)(int*, char***, int, int*))mpi_symbol("PMPI_Init_thread");
}

/* Who is who, again: at MPI_Init (the core and liboverlap are loaded by then, and a
 * bindings library dlopen()ed after start-up is found). */
static void survey(void) {
  Dl_info mpi;
  if (pnext_init != NULL && dladdr((void*)pnext_init, &mpi) != 0)
    mpi_base = (uintptr_t)mpi.dli_fbase;
  struct ranges found[2] = {{{{0, 0}}, 0}, {{{0, 0}}, 0}};
  dl_iterate_phdr(note_library, found);
  /* Published range by range, then the count: a reader on another thread sees the old
   * set or a prefix of the new one (libraries are only ever added). */
  for (int k = 0; k < 2; ++k) {
    struct ranges* to = k == 0 ? &fortran : &ours;
    memcpy(to->r, found[k].r, sizeof to->r);
    __atomic_store_n(&to->n, found[k].n, __ATOMIC_RELEASE);
  }
}

__attribute__((constructor)) static void fortran_entry_loaded(void) {
  Dl_info me;
  if (dladdr((void*)&fortran_entry_loaded, &me) != 0) own_base = (uintptr_t)me.dli_fbase;
  const char* report = getenv("OVERLAP_INTERCEPT_REPORT");
  unwind_sites = report != NULL && *report != '\0';
  /* Processes without MPI (a launcher, shells in the launcher form) look up nothing. */
  if (dlsym(RTLD_NEXT, "PMPI_Init") != NULL) resolve_pmpi();
  survey();
}

/* MPI's PMPI_ function, looked up again where it was not found; never called as NULL. */
static int missing(const char* name) {
  fprintf(stderr, "overlap-run: MPI's %s cannot be found from the preloaded library\n", name);
  return MPI_ERR_INTERN;
}
#define MPI_OWN(fn) ((fn) != NULL ? (fn) : (resolve_pmpi(), (fn)))

/* ---- call sites ----------------------------------------------------------------------- */

/* The program's call site of a binding's call: the first return address on the stack
 * outside the shim and the bindings (about 1 us: only with --report, where sites are
 * shown), else the binding's own. */
static const void* program_site(const void* binding) {
  if (!unwind_sites) return binding;
  void* frames[8];
  const int n = backtrace(frames, 8);
  for (int i = 0; i < n; ++i) {
    const uintptr_t a = (uintptr_t)frames[i];
    if ((a >= own.lo && a < own.hi) || from_fortran(frames[i])) continue;
    return frames[i];
  }
  return binding;
}

/* The site of a call to one of the shim's MPI_ functions returning to `ret`: a Fortran
 * binding's call (MPICH's bindings call the MPI_ names) is the program's line. */
OVX_HIDDEN const void* ovx_call_site(const void* ret) {
  return fortran.n == 0 || !from_fortran(ret) ? ret : program_site(ret);
}

/* ---- the entries ---------------------------------------------------------------------- */

/* The program's call, served by the shim's own MPI_ function; a binding's with the
 * program's line as its site. */
#define SERVE(name, args, ret)                                            \
  struct ovx_thread_state* t = ovx_shim_thread();                          \
  const void* outer = t->binding_site;                                     \
  if (outer == NULL && from_fortran(ret)) t->binding_site = program_site(ret); \
  t->via_pmpi = 1;                                                         \
  const int rc = ovx_own_##name args;                                      \
  t->via_pmpi = 0;                                                         \
  t->binding_site = outer;                                                 \
  return rc

#define COMPLETES_CORE 0
#define COMPLETES_STRAIGHT 0
#define COMPLETES_FENCE 0
#define COMPLETES_EXPOSE 0
#define COMPLETES_FENCE_REQ 0
#define COMPLETES_EXPOSE_REQ 0
#define COMPLETES_ROUTE_REQ 0
#define COMPLETES_ROUTE 0
#define COMPLETES_MAKES_COMM 0
#define COMPLETES_POLL 1

/* (OVX_MPI_FUNCTIONS_ONLY is defined: MPI's functions, not liboverlap's.) */
#define X(kind, name, params, args)                                     \
  OVX_HIDDEN extern int ovx_own_##name params;                          \
  OVX_EXPORT int P##name params {                                       \
    const void* ret = __builtin_return_address(0);                      \
    if (!programs_call(ret, COMPLETES_##kind)) {                        \
      int(*f) params = MPI_OWN(ovx_pnext_##name);                       \
      return f != NULL ? f args : missing("P" #name);                   \
    }                                                                   \
    SERVE(name, args, ret);                                             \
  }
#include "intercept/shim/mpi_functions.def"
#undef X

OVX_HIDDEN extern int ovx_own_MPI_Init(int*, char***);
OVX_HIDDEN extern int ovx_own_MPI_Init_thread(int*, char***, int, int*);

/* A program's PMPI_Init from a bindings library loaded after start-up is found by a
 * survey first. */
static int fortran_init_call(const void* ret) {
  if (!from_fortran(ret)) survey();
  return from_fortran(ret);
}

OVX_EXPORT int PMPI_Init(int* argc, char*** argv) {
  const void* ret = __builtin_return_address(0);
  resolve_pmpi();
  if (!fortran_init_call(ret)) {
    return pnext_init != NULL ? pnext_init(argc, argv) : missing("PMPI_Init");
  }
  SERVE(MPI_Init, (argc, argv), ret);
}

OVX_EXPORT int PMPI_Init_thread(int* argc, char*** argv, int required, int* provided) {
  const void* ret = __builtin_return_address(0);
  resolve_pmpi();
  if (!fortran_init_call(ret)) {
    return pnext_init_thread != NULL ? pnext_init_thread(argc, argv, required, provided)
                                     : missing("PMPI_Init_thread");
  }
  SERVE(MPI_Init_thread, (argc, argv, required, provided), ret);
}
