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

#include "intercept/shim/hook_mirror.h"
#include "intercept/shim/site_counters.h"
#include "intercept/shim/straight_path.h"

#ifdef __cplusplus
extern "C" {
#endif

#define OVX_SHIM_ABI 13

/* The name liboverlap gives its progress (and rescue) thread. */
#define OVX_ENGINE_THREAD_NAME "ovx-progress"

/* Per thread, owned by the shim. */
struct ovx_thread_state {
  int in_mpi;       /* depth of interposed MPI calls on this thread */
  const void* site; /* return address of the outermost one (the program's call site) */
  /* Set around a call a Fortran binding made (fortran_entry.c): the site to record, the
   * binding's return address, since the wrapper's own is inside the shim. */
  const void* binding_site;
  /* The call came in under its PMPI_ name (fortran_entry.c): what the shim passes on goes
   * to MPI's PMPI_ function, never to another library's MPI_ one. */
  int via_pmpi;
  /* A fault the handler let retry (see core): its address, and the count of protection
   * changes made by then. */
  uintptr_t retry_addr;
  uint64_t retry_generation;
  int kind; /* 0 not known yet, 1 a program's thread, 2 liboverlap's progress thread */
  /* Names the thread for as long as the process lives (never reused, unlike the address
   * of this state after a thread exits); thread_state() sets it on first use. */
  uint64_t serial;
  int in_fault; /* inside the core's SIGSEGV handler (then data is copied, never moved) */
  /* This thread holds a transfer it may have closed pages for and not yet published (the
   * core's deferral.cpp): a fault of its own on a page of ours then never resolves. */
  int posting;
  /* This thread's recent call sites (site_counters.h): filled by the core, read by the
   * shim's straight path; here because every intercepted call reaches this state
   * already, where a thread_local of the core would cost a lookup of its own. */
  struct ovx_site_cache site_cache;
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
  /* 1 when the program set something that lives in the mapping on any page of [lo, hi)
   * since it started (madvise advice, mlock, a protection key), or locked all its memory:
   * such pages are copied into, never moved (move_gate.hpp). Lock-free. */
  int (*marked)(uintptr_t lo, uintptr_t hi);
  /* 1 when [lo, hi) is exactly one private anonymous mmap() the process made (and has not
   * unmapped since), whatever the kernel merged it with. Lock-free. */
  int (*mapped_whole)(uintptr_t lo, uintptr_t hi);
  /* For hooks that see these calls where the shim's wrappers do not (UCX patches the
   * program's mmap/munmap/mremap/madvise to its own): the wrappers' records. advised():
   * advice -1 marks always; unmapped() before the unmapping, the others after. */
  void (*advised)(const void* addr, size_t len, int advice);
  void (*mapped)(const void* addr, size_t len, int flags);
  void (*unmapped)(const void* addr, size_t len);
  void (*remapped)(const void* old, size_t old_size, const void* moved, size_t new_size, int flags);
  /* UCX's memory hooks found patched onto the shim's munmap/mremap/madvise/mmap wrappers
   * are put on libc's functions too (hook_mirror.h): checks once more, and the state. */
  void (*mirror_memory_hooks)(struct ovx_hook_mirror* state);
  /* What the shim needs to send a small MPI_Send/MPI_Recv straight to MPI itself
   * (straight_path.h); the core fills it. */
  struct ovx_straight* straight;
  /* Counts unmappings (munmap, mremap, MAP_FIXED, UCX's hooks) and shared or file-backed
   * mappings made through the shim's wrappers: when it moved, memory the core classified
   * as private may be another kind now. Read with __atomic_load_n. */
  unsigned long* map_changes;
};

/* How many (count, type) blocks a buffer argument has (footprint.hpp's Group): one, one
 * per process exchanged with (an intercommunicator's remote group), the larger group
 * (where the standard leaves it open), one per incoming or outgoing neighbour. */
enum { OVX_ONE = 0, OVX_PEERS = 1, OVX_EITHER = 2, OVX_IN = 3, OVX_OUT = 4 };

/* What the core offers; a NULL CORE entry means "MPI's own function". */
struct ovx_core {
#define X(kind, name, params, args) int(*name) params;
#include "intercept/shim/mpi_functions.def"
#undef X
  /* MPI_Init / MPI_Init_thread (thread_form 0 / 1). */
  int (*init)(int* argc, char*** argv, int required, int* provided, int thread_form);
  void (*fence)(void); /* completes every deferred transfer */
  /* MPI may now hold memory registered beyond a call (EXPOSE entries): received pages are
   * copied into place from now on, never moved (docs/overlap-run.md). */
  void (*expose)(void);
  /* Around a FENCE_REQ or EXPOSE_REQ entry (mpi_functions.def): the fence's footprint is
   * kept (request_begin, then the entry's OVX_FOOTPRINT_ even with no transfer in flight)
   * and, when MPI returned a request, recorded as memory that request holds until it
   * completes, or until it is freed when `persistent` (runtime/program_requests.hpp). */
  void (*request_begin)(void);
  void (*request_end)(int rc, const MPI_Request* request, int persistent);
  /* A reduction's operation, from its footprint (mpi_footprints.h, OVX_NOTE_OP): while a
   * request's footprint is recorded, a user-defined operation under less than
   * MPI_THREAD_MULTIPLE keeps the engine from driving MPI for that request (it would run
   * the program's function on the engine's thread). */
  void (*note_op)(MPI_Op op);
  /* Fences limited to what a call can observe (mpi_footprints.h): each completes the
   * calling thread's deferred transfers and the other threads' transfers that conflict
   * with the call's buffers, one per signature shape (footprint.hpp); `write` 0 when the
   * call only reads the buffer. The _c forms take MPI 4.0's large counts. */
  void (*fence_buffer)(const void* buf, int count, MPI_Datatype type, int write);
  void (*fence_buffer_c)(const void* buf, MPI_Count count, MPI_Datatype type, int write);
  void (*fence_bytes)(const void* buf, MPI_Count n, int write);
  void (*fence_pair)(const void* sendbuf, const void* recvbuf, int count, MPI_Datatype type);
  void (*fence_pair_c)(const void* sendbuf, const void* recvbuf, MPI_Count count,
                       MPI_Datatype type);
  void (*fence_exchange)(const void* sendbuf, int sendcount, MPI_Datatype sendtype, int send_group,
                         const void* recvbuf, int recvcount, MPI_Datatype recvtype, int recv_group,
                         MPI_Comm comm);
  void (*fence_exchange_c)(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                           int send_group, const void* recvbuf, MPI_Count recvcount,
                           MPI_Datatype recvtype, int recv_group, MPI_Comm comm);
  void (*fence_bcast)(const void* buf, int count, MPI_Datatype type, int root, MPI_Comm comm);
  void (*fence_bcast_c)(const void* buf, MPI_Count count, MPI_Datatype type, int root,
                        MPI_Comm comm);
  void (*fence_reduce)(const void* sendbuf, const void* recvbuf, int count, MPI_Datatype type,
                       int root, MPI_Comm comm);
  void (*fence_reduce_c)(const void* sendbuf, const void* recvbuf, MPI_Count count,
                         MPI_Datatype type, int root, MPI_Comm comm);
  void (*fence_gather)(const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                       const void* recvbuf, int recvcount, MPI_Datatype recvtype, int root,
                       MPI_Comm comm);
  void (*fence_gather_c)(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                         const void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int root,
                         MPI_Comm comm);
  void (*fence_scatter)(const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                        const void* recvbuf, int recvcount, MPI_Datatype recvtype, int root,
                        MPI_Comm comm);
  void (*fence_scatter_c)(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                          const void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int root,
                          MPI_Comm comm);
  void (*fence_gatherv)(const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                        const void* recvbuf, const int* recvcounts, const int* displs,
                        MPI_Datatype recvtype, int root, MPI_Comm comm);
  void (*fence_gatherv_c)(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                          const void* recvbuf, const MPI_Count* recvcounts, const MPI_Aint* displs,
                          MPI_Datatype recvtype, int root, MPI_Comm comm);
  void (*fence_scatterv)(const void* sendbuf, const int* sendcounts, const int* displs,
                         MPI_Datatype sendtype, const void* recvbuf, int recvcount,
                         MPI_Datatype recvtype, int root, MPI_Comm comm);
  void (*fence_scatterv_c)(const void* sendbuf, const MPI_Count* sendcounts, const MPI_Aint* displs,
                           MPI_Datatype sendtype, const void* recvbuf, MPI_Count recvcount,
                           MPI_Datatype recvtype, int root, MPI_Comm comm);
  void (*fence_allgatherv)(const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                           const void* recvbuf, const int* recvcounts, const int* displs,
                           MPI_Datatype recvtype, int recv_group, MPI_Comm comm);
  void (*fence_allgatherv_c)(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                             const void* recvbuf, const MPI_Count* recvcounts,
                             const MPI_Aint* displs, MPI_Datatype recvtype, int recv_group,
                             MPI_Comm comm);
  void (*fence_alltoallv)(const void* sendbuf, const int* sendcounts, const int* sdispls,
                          MPI_Datatype sendtype, int send_group, const void* recvbuf,
                          const int* recvcounts, const int* rdispls, MPI_Datatype recvtype,
                          int recv_group, MPI_Comm comm);
  void (*fence_alltoallv_c)(const void* sendbuf, const MPI_Count* sendcounts,
                            const MPI_Aint* sdispls, MPI_Datatype sendtype, int send_group,
                            const void* recvbuf, const MPI_Count* recvcounts,
                            const MPI_Aint* rdispls, MPI_Datatype recvtype, int recv_group,
                            MPI_Comm comm);
  void (*fence_alltoallw)(const void* sendbuf, const int* sendcounts, const int* sdispls,
                          const MPI_Datatype* sendtypes, int send_group, const void* recvbuf,
                          const int* recvcounts, const int* rdispls, const MPI_Datatype* recvtypes,
                          int recv_group, MPI_Comm comm);
  /* Neighbor_alltoallw: int counts, byte displacements as MPI_Aint */
  void (*fence_alltoallw_aint)(const void* sendbuf, const int* sendcounts, const MPI_Aint* sdispls,
                               const MPI_Datatype* sendtypes, int send_group, const void* recvbuf,
                               const int* recvcounts, const MPI_Aint* rdispls,
                               const MPI_Datatype* recvtypes, int recv_group, MPI_Comm comm);
  void (*fence_alltoallw_c)(const void* sendbuf, const MPI_Count* sendcounts,
                            const MPI_Aint* sdispls, const MPI_Datatype* sendtypes, int send_group,
                            const void* recvbuf, const MPI_Count* recvcounts,
                            const MPI_Aint* rdispls, const MPI_Datatype* recvtypes, int recv_group,
                            MPI_Comm comm);
  void (*fence_reduce_scatter_block)(const void* sendbuf, const void* recvbuf, int recvcount,
                                     MPI_Datatype type, MPI_Comm comm);
  void (*fence_reduce_scatter_block_c)(const void* sendbuf, const void* recvbuf,
                                       MPI_Count recvcount, MPI_Datatype type, MPI_Comm comm);
  void (*fence_reduce_scatter)(const void* sendbuf, const void* recvbuf, const int* recvcounts,
                               MPI_Datatype type, MPI_Comm comm);
  void (*fence_reduce_scatter_c)(const void* sendbuf, const void* recvbuf,
                                 const MPI_Count* recvcounts, MPI_Datatype type, MPI_Comm comm);
  /* Pack and Pack_external (outsize bytes), Unpack and Unpack_external (insize bytes) */
  void (*fence_pack)(const void* inbuf, int incount, MPI_Datatype type, const void* outbuf,
                     MPI_Aint outsize);
  void (*fence_pack_c)(const void* inbuf, MPI_Count incount, MPI_Datatype type, const void* outbuf,
                       MPI_Count outsize);
  void (*fence_unpack)(const void* inbuf, MPI_Aint insize, const void* outbuf, int outcount,
                       MPI_Datatype type);
  void (*fence_unpack_c)(const void* inbuf, MPI_Count insize, const void* outbuf,
                         MPI_Count outcount, MPI_Datatype type);
  void (*poll)(void); /* one progress pass (policy caller) */
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
  /* After a MAKES_COMM entry made `*newcomm` (MPI_COMM_NULL on a rank outside it). */
  void (*comm_made)(MPI_Comm* newcomm);
  /* The routers of the ROUTE and ROUTE_REQ entries (mpi_functions.def), called after the
   * entry's fence (and before the record of its request): each serves the call with
   * liboverlap's collective or MPI's own (calls/collective_routes.cpp), a blocking one
   * perhaps deferred (calls/collective_deferral.cpp). NULL: MPI's own. */
  struct {
#define OVX_ROUTER_CORE(name, params)
#define OVX_ROUTER_STRAIGHT(name, params)
#define OVX_ROUTER_FENCE(name, params)
#define OVX_ROUTER_EXPOSE(name, params)
#define OVX_ROUTER_POLL(name, params)
#define OVX_ROUTER_FENCE_REQ(name, params)
#define OVX_ROUTER_EXPOSE_REQ(name, params)
#define OVX_ROUTER_MAKES_COMM(name, params)
#define OVX_ROUTER_ROUTE_REQ(name, params) int(*name) params;
#define OVX_ROUTER_ROUTE(name, params) int(*name) params;
#define X(kind, name, params, args) OVX_ROUTER_##kind(name, params)
#include "intercept/shim/mpi_functions.def"
#undef X
  } route;
};

/* Exported by the core. */
const struct ovx_core* ovx_intercept_core_start(const struct ovx_shim* shim);

#ifdef __cplusplus
}
#endif

#endif /* OVERLAP_INTERCEPT_SHIM_API_H */
