// The interposed MPI functions the core implements (mpi_functions.def, kind CORE), the
// table the shim calls through, and MPI_Init/MPI_Finalize.
#include <dlfcn.h>
#include <fcntl.h>
#include <malloc.h>
#include <pthread.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <fstream>

#include "base/usage_error.hpp"
#include "collectives/intercept_abi.h"
#include "intercept/calls/collective_routes.hpp"
#include "intercept/calls/deferral.hpp"
#include "intercept/calls/fence_calls.hpp"
#include "intercept/calls/named_type_sizes.hpp"
#include "intercept/calls/partitioned_routes.hpp"
#include "intercept/calls/request_calls.hpp"
#include "intercept/placement/placement.hpp"
#include "intercept/placement/ucx_events.hpp"
#include "intercept/report/run_report.hpp"
#include "intercept/runtime/core_runtime.hpp"
#include "intercept/runtime/fault_handler.hpp"
#include "intercept/runtime/program_requests.hpp"
#include "intercept/runtime/status_codec.hpp"
#include "overlap/overlap.h"

namespace overlap::intercept {

namespace {

// Settles the bytes a (buf, count, type) argument of a call that is not deferred covers.
// With no deferred transfer in flight in the process there is nothing to settle, and the
// type queries behind the bytes would cost a small message more than the rest of its path.
[[gnu::hot]] void settle_buffer(const void* buf, int count, MPI_Datatype type, bool write) {
  if (__atomic_load_n(runtime().shim->active, __ATOMIC_ACQUIRE) == 0) return;
  const Span s = typed_bytes(buf, count, type, write);
  settle(s.lo, s.hi, s.write);
}

[[gnu::hot]] int plain_send(Call call, const void* buf, int count, MPI_Datatype type, int dest,
                            int tag, MPI_Comm comm) {
  switch (call) {
    case Call::rsend:
      return PMPI_Rsend(buf, count, type, dest, tag, comm);
    case Call::ssend:
      return PMPI_Ssend(buf, count, type, dest, tag, comm);
    case Call::bsend:
      return PMPI_Bsend(buf, count, type, dest, tag, comm);
    default:
      return PMPI_Send(buf, count, type, dest, tag, comm);
  }
}

[[gnu::hot]] bool family_on(Call call) {
  const Families& f = runtime().settings.families;
  switch (call) {
    case Call::send:
      return f.send;
    case Call::rsend:
      return f.rsend;
    case Call::recv:
      return f.recv;
    default:
      return f.sendrecv;
  }
}

// The reason a send may not be deferred, or nothing.
[[gnu::hot]] std::optional<Reason> send_reason(Call call, const void* buf, int count,
                                               MPI_Datatype type, std::uint64_t bytes, int dest,
                                               int tag, MPI_Comm comm, Extent& e) {
  if (call == Call::ssend) return Reason::synchronous_mode;
  if (call == Call::bsend) return Reason::buffered_mode;
  if (!family_on(call)) return Reason::family_off;
  if (dest == MPI_PROC_NULL) return Reason::proc_null;
  std::optional<Reason> why = check_deferrable(buf, count, type, bytes, comm, false, e);
  if (!why && !mpi_accepts_send(dest, tag, comm)) why = Reason::mpi_error;
  return why;
}

[[gnu::hot]] std::optional<Reason> recv_reason(Call call, void* buf, int count, MPI_Datatype type,
                                               std::uint64_t bytes, int source, int tag,
                                               MPI_Comm comm, const MPI_Status* status, Extent& e) {
  if (!family_on(call)) return Reason::family_off;
  if (source == MPI_PROC_NULL) return Reason::proc_null;
  if (status != MPI_STATUS_IGNORE && (source == MPI_ANY_SOURCE || tag == MPI_ANY_TAG)) {
    return Reason::wildcard_status;
  }
  return check_deferrable(buf, count, type, bytes, comm, true, e);
}

// MPI refused the nonblocking call a deferral posts (and ran the communicator's error
// handler): the blocking call returns that error, as MPI's own would have.
int refused(SiteCounters& counts, int rc) {
  ovx_count_straight(&counts, static_cast<int>(Reason::mpi_error));
  return rc;
}

// What the program sees of a deferred receive's status at return (status_codec.hpp).
void fill_pending_status(MPI_Status* status, int source, int tag, std::uint32_t token) {
  if (status == MPI_STATUS_IGNORE) return;
  status->MPI_SOURCE = source;
  status->MPI_TAG = tag;
#if defined(OPEN_MPI)
  status->MPI_ERROR = MPI_SUCCESS;  // Open MPI's MPI_Recv sets it too
#endif
  encode_pending(*status, token);
}

[[gnu::hot]] int send_call(Call call, const void* buf, int count, MPI_Datatype type, int dest,
                           int tag, MPI_Comm comm) {
  Runtime& rt = runtime();
  if (!rt.active) return plain_send(call, buf, count, type, dest, tag, comm);
  begin_call();
  SiteCounters& counts = own_counters(call);
  const std::uint64_t bytes = message_bytes(count, type);
  ovx_count_call(&counts, bytes);
  Extent e;
  std::optional<Reason> why = send_reason(call, buf, count, type, bytes, dest, tag, comm, e);
  if (!why) {
    const Started st = start_send(call, buf, count, type, dest, tag, comm, e, call == Call::rsend);
    if (st.slot != nullptr) return MPI_SUCCESS;
    if (st.reason == Reason::mpi_error) return refused(counts, st.rc);
    why = st.reason;
  }
  ovx_count_straight(&counts, static_cast<int>(*why));
  settle_buffer(buf, count, type, false);
  return plain_send(call, buf, count, type, dest, tag, comm);
}

[[gnu::hot]] int core_send(const void* b, int n, MPI_Datatype t, int d, int tag, MPI_Comm c) {
  return send_call(Call::send, b, n, t, d, tag, c);
}
int core_rsend(const void* b, int n, MPI_Datatype t, int d, int tag, MPI_Comm c) {
  return send_call(Call::rsend, b, n, t, d, tag, c);
}
int core_ssend(const void* b, int n, MPI_Datatype t, int d, int tag, MPI_Comm c) {
  return send_call(Call::ssend, b, n, t, d, tag, c);
}
int core_bsend(const void* b, int n, MPI_Datatype t, int d, int tag, MPI_Comm c) {
  return send_call(Call::bsend, b, n, t, d, tag, c);
}

[[gnu::hot]] int core_recv(void* buf, int count, MPI_Datatype type, int source, int tag,
                           MPI_Comm comm, MPI_Status* status) {
  Runtime& rt = runtime();
  if (!rt.active) return PMPI_Recv(buf, count, type, source, tag, comm, status);
  begin_call();
  SiteCounters& counts = own_counters(Call::recv);
  const std::uint64_t bytes = message_bytes(count, type);
  ovx_count_call(&counts, bytes);
  Extent e;
  std::optional<Reason> why =
      recv_reason(Call::recv, buf, count, type, bytes, source, tag, comm, status, e);
  if (!why) {
    const Started st = start_recv(Call::recv, buf, count, type, source, tag, comm, e);
    if (st.slot != nullptr) {
      fill_pending_status(status, source, tag, st.token);
      return MPI_SUCCESS;
    }
    if (st.reason == Reason::mpi_error) return refused(counts, st.rc);
    why = st.reason;
  }
  ovx_count_straight(&counts, static_cast<int>(*why));
  settle_buffer(buf, count, type, true);
  return PMPI_Recv(buf, count, type, source, tag, comm, status);
}

int core_sendrecv_replace(void* buf, int count, MPI_Datatype type, int dest, int sendtag,
                          int source, int recvtag, MPI_Comm comm, MPI_Status* status) {
  Runtime& rt = runtime();
  if (!rt.active) {
    return PMPI_Sendrecv_replace(buf, count, type, dest, sendtag, source, recvtag, comm, status);
  }
  begin_call();
  SiteCounters& counts = own_counters(Call::sendrecv_replace);
  const std::uint64_t bytes = message_bytes(count, type);
  ovx_count_call(&counts, bytes);
  Extent e;
  std::optional<Reason> why = dest == MPI_PROC_NULL
                                  ? std::optional<Reason>(Reason::proc_null)
                                  : recv_reason(Call::sendrecv_replace, buf, count, type, bytes,
                                                source, recvtag, comm, status, e);
  if (!why) {
    const Started st =
        start_sendrecv_replace(buf, count, type, dest, sendtag, source, recvtag, comm, e);
    if (st.slot != nullptr) {
      fill_pending_status(status, source, recvtag, st.token);
      return MPI_SUCCESS;
    }
    if (st.reason == Reason::mpi_error) return refused(counts, st.rc);
    why = st.reason;
  }
  ovx_count_straight(&counts, static_cast<int>(*why));
  settle_buffer(buf, count, type, true);
  return PMPI_Sendrecv_replace(buf, count, type, dest, sendtag, source, recvtag, comm, status);
}

// A status still marked pending: complete its transfer, then answer from the real one.
bool real_status(const MPI_Status* status, MPI_Status& real) {
  if (status == MPI_STATUS_IGNORE) return false;
  const auto token = pending_token(*status);
  if (!token) return false;
  Runtime& rt = runtime();
  if (Slot* s = rt.table.find_token(*token)) wait_slot(*s, *token);
  if (!rt.statuses.load(*token, real)) {
    std::fprintf(stderr,
                 "overlap-run: the status passed to MPI_Get_count & co. belongs to a receive more "
                 "than 65536 deferred receives ago; its count is no longer known\n");
    real = *status;
    return false;
  }
  return true;
}

// Whether the bytes a send and a receive touch lie on a common page.
bool halves_share_page(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                       int recvcount, MPI_Datatype recvtype) {
  const Span s = typed_bytes(sendbuf, sendcount, sendtype, false);
  const Span r = typed_bytes(recvbuf, recvcount, recvtype, true);
  if (s.hi <= s.lo || r.hi <= r.lo) return false;
  const std::uintptr_t page = runtime().page;
  // Pages [lo / page, (hi - 1) / page] of each overlap.
  return s.lo / page <= (r.hi - 1) / page && r.lo / page <= (s.hi - 1) / page;
}

// Sendrecv: each part deferred or not on its own; the parts not deferred complete here.
int core_sendrecv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag,
                  void* recvbuf, int recvcount, MPI_Datatype recvtype, int source, int recvtag,
                  MPI_Comm comm, MPI_Status* status) {
  Runtime& rt = runtime();
  if (!rt.active) {
    return PMPI_Sendrecv(sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount, recvtype,
                         source, recvtag, comm, status);
  }
  begin_call();
  SiteCounters& rcounts = own_counters(Call::sendrecv_recv);
  SiteCounters& scounts = own_counters(Call::sendrecv_send);
  const std::uint64_t rbytes = message_bytes(recvcount, recvtype);
  const std::uint64_t sbytes = message_bytes(sendcount, sendtype);
  ovx_count_call(&rcounts, rbytes);
  ovx_count_call(&scounts, sbytes);
  Extent re, se;
  std::optional<Reason> rwhy = recv_reason(Call::sendrecv_recv, recvbuf, recvcount, recvtype,
                                           rbytes, source, recvtag, comm, status, re);
  std::optional<Reason> swhy = send_reason(Call::sendrecv_send, sendbuf, sendcount, sendtype,
                                           sbytes, dest, sendtag, comm, se);
  // A deferrable receive means the communicator's handler is fatal. Where it is not, a
  // deferred send half would be posted before MPI checked the receive half (a stray
  // message when MPI would refuse the call): the call runs whole, as written.
  if (rwhy && !swhy && !communicator_fatal(comm)) swhy = Reason::errors_return;
  // The halves' buffers are disjoint, but may share a page (one block of the program's, a
  // type with holes): a half deferred would close or fence that page, and the other half,
  // completed in this same call, would wait for it (a deadlock). The call runs whole.
  if ((!rwhy || !swhy) &&
      halves_share_page(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype)) {
    if (!rwhy) rwhy = Reason::halves_share_page;
    if (!swhy) swhy = Reason::halves_share_page;
  }
  if (rwhy && swhy) {
    // Neither part can be deferred: MPI's own call, with MPI's own errors and status.
    ovx_count_straight(&rcounts, static_cast<int>(*rwhy));
    ovx_count_straight(&scounts, static_cast<int>(*swhy));
    settle_buffer(recvbuf, recvcount, recvtype, true);
    settle_buffer(sendbuf, sendcount, sendtype, false);
    return PMPI_Sendrecv(sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount, recvtype,
                         source, recvtag, comm, status);
  }
  // One part or both deferred, on a communicator whose handler ends the job on an error.
  // The deferred part is posted first; a part not deferred then runs as its blocking call,
  // so MPI raises its errors on this communicator as MPI_Sendrecv would.
  std::uint32_t token = 0;
  if (!rwhy) {
    const Started st =
        start_recv(Call::sendrecv_recv, recvbuf, recvcount, recvtype, source, recvtag, comm, re);
    if (st.slot == nullptr) rwhy = st.reason;
    token = st.token;
  }
  if (!swhy) {
    const Started st = start_send(Call::sendrecv_send, sendbuf, sendcount, sendtype, dest, sendtag,
                                  comm, se, false);
    if (st.slot == nullptr) swhy = st.reason;
  }
  if (rwhy && swhy) {  // neither could start after all (too many in flight, ...)
    ovx_count_straight(&rcounts, static_cast<int>(*rwhy));
    ovx_count_straight(&scounts, static_cast<int>(*swhy));
    return PMPI_Sendrecv(sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount, recvtype,
                         source, recvtag, comm, status);
  }
  int rc = MPI_SUCCESS;
  if (swhy) {
    ovx_count_straight(&scounts, static_cast<int>(*swhy));
    settle_buffer(sendbuf, sendcount, sendtype, false);
    rc = PMPI_Send(sendbuf, sendcount, sendtype, dest, sendtag, comm);
  }
  if (rwhy) {
    ovx_count_straight(&rcounts, static_cast<int>(*rwhy));
    settle_buffer(recvbuf, recvcount, recvtype, true);
    // A single-completion call leaves MPI_ERROR alone (MPI 4.0 sec. 3.2.5).
    const int error_field = status != MPI_STATUS_IGNORE ? status->MPI_ERROR : MPI_SUCCESS;
    rc = PMPI_Recv(recvbuf, recvcount, recvtype, source, recvtag, comm, status);
    if (status != MPI_STATUS_IGNORE) status->MPI_ERROR = error_field;
  } else {
    fill_pending_status(status, source, recvtag, token);
  }
  return rc;
}

// A status query answered from the real status when `status` marks a deferred receive,
// else from `status` itself: MPI_Get_count, _elements(_x), their MPI-4 _c forms, and
// MPI_Test_cancelled are one shape.
template <auto Query, class... Out>
int decoded(const MPI_Status* status, Out... out) {
  MPI_Status real;
  return Query(real_status(status, real) ? &real : status, out...);
}
int core_get_count(const MPI_Status* s, MPI_Datatype t, int* count) {
  return decoded<PMPI_Get_count>(s, t, count);
}
int core_get_elements(const MPI_Status* s, MPI_Datatype t, int* count) {
  return decoded<PMPI_Get_elements>(s, t, count);
}
int core_get_elements_x(const MPI_Status* s, MPI_Datatype t, MPI_Count* count) {
  return decoded<PMPI_Get_elements_x>(s, t, count);
}
#if MPI_VERSION >= 4
int core_get_count_c(const MPI_Status* s, MPI_Datatype t, MPI_Count* count) {
  return decoded<PMPI_Get_count_c>(s, t, count);
}
int core_get_elements_c(const MPI_Status* s, MPI_Datatype t, MPI_Count* count) {
  return decoded<PMPI_Get_elements_c>(s, t, count);
}
#endif
int core_test_cancelled(const MPI_Status* s, int* flag) {
  return decoded<PMPI_Test_cancelled>(s, flag);
}

int core_query_thread(int* provided) {
  int initialized = 0;
  PMPI_Initialized(&initialized);
  if (initialized == 0 || provided == nullptr) return PMPI_Query_thread(provided);
  *provided = runtime().program_provided;
  return MPI_SUCCESS;
}

void core_fence() {
  if (!runtime().active) return;
  // A call whose memory cannot be told: a request it returned holds all of it.
  if (FootprintRecord& record = request_footprint(); record.on) {
    record.unknown = true;
    return;
  }
  settle_all();
}
void core_poll() {
  Runtime& rt = runtime();
  if (rt.active && !rt.progress->background()) rt.progress->poll_in_call();
}
void core_settle(const void* addr, std::size_t len, int write) {
  const auto lo = reinterpret_cast<std::uintptr_t>(addr);
  settle(lo, lo + len, write != 0);
}
// free()/realloc() read the block's header and may write or unmap the whole block.
bool defined_in(void* symbol, const char* library) {
  Dl_info info{};
  return symbol != nullptr && dladdr(symbol, &info) != 0 && info.dli_fname != nullptr &&
         std::strstr(info.dli_fname, library) != nullptr;
}

// Whether the program's heap is glibc's, so block headers can be read as glibc's: the
// free() the program calls is the shim's or libc's own, and the one behind the shim is
// libc's (not jemalloc's or tcmalloc's). A sanitizer's comes before both.
bool free_is_glibcs(const ovx_shim& shim) {
  if (dlsym(RTLD_DEFAULT, "__asan_init") != nullptr) return false;
  if (dlsym(RTLD_DEFAULT, "__tsan_init") != nullptr) return false;
  void* first = dlsym(RTLD_DEFAULT, "free");
  const bool first_ok = defined_in(first, "liboverlap-intercept") || defined_in(first, "libc.so");
  return first_ok && defined_in(shim.next("free"), "libc.so");
}

void core_settle_free(void* pointer) {
  Runtime& rt = runtime();
  if (!rt.active) return;
  const auto p = reinterpret_cast<std::uintptr_t>(pointer);
  if (p < 16) return;
  if (!rt.glibc_heap) {
    // Another allocator (jemalloc, tcmalloc, a sanitizer's): its block headers are not
    // glibc's, but each of them tells the block's usable size.
    settle(p, p + std::max<std::size_t>(malloc_usable_size(pointer), 1), true);
    return;
  }
  settle(p - 16, p, true);  // the header's page first: it may be a receive's first page
  const auto size_field = read_own_word(p - 8);
  const std::uint64_t size = size_field ? (*size_field & ~std::uint64_t{7}) : 0;
  settle(p - 16, p + (size > 16 ? size - 16 : 0), true);
}

void prepare_fork() {
  if (runtime().active) settle_all();
}
// The shim's own path for small MPI_Send/MPI_Recv (straight_path.h). Only with a progress
// thread: under policy caller every intercepted call owes the engine a pass.
void open_straight_path(Runtime& rt) {
  ovx_straight& s = *rt.shim->straight;
  learn_named_type_sizes(s);
  s.send = rt.settings.families.send ? 1 : 0;
  s.recv = rt.settings.families.recv ? 1 : 0;
  s.min_bytes = static_cast<std::uint64_t>(std::max(0L, rt.settings.min_bytes));
  s.sites_owner = rt.sites.id();
  if (rt.progress->background()) __atomic_store_n(&s.on, 1, __ATOMIC_RELEASE);
}

void close_straight_path(Runtime& rt) {
  __atomic_store_n(&rt.shim->straight->on, 0, __ATOMIC_RELEASE);
}

void in_forked_child() {
  Runtime& rt = runtime();
  close_straight_path(rt);
  rt.active = false;
  __atomic_store_n(rt.shim->active, 0, __ATOMIC_RELEASE);
}

// What the ranks route is agreed in MPI_Init, by every rank whose interception is enabled
// (a job-wide setting), on every path: a rank that ends up inactive (its engine refused,
// /proc/self/mem closed) still joins, wanting nothing, so the others' collectives on
// MPI_COMM_WORLD below never meet a rank that skipped them.
void agree_on_routes() {
  const Runtime& rt = runtime();
  const bool collectives =
      rt.active && rt.settings.collectives_overlap && rt.policy != Policy::caller;
  // Routing a collective reads --min-size too: ranks given different ones (an MPMD launch
  // with different options) would route differently, so they route nothing. One MPI_MAX
  // over negated wishes (their minimum) and the size both ways.
  const long long min = rt.settings.min_bytes;
  long long want[5] = {rt.active && rt.settings.partitioned_overlap ? -1 : 0, collectives ? -1 : 0,
                       collectives && rt.settings.families.collectives ? -1 : 0, min, -min};
  long long all[5] = {};
  if (PMPI_Allreduce(want, all, 5, MPI_LONG_LONG, MPI_MAX, MPI_COMM_WORLD) != MPI_SUCCESS) return;
  const bool same_size = all[3] == -all[4];
  int rank = 0;
  PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (!same_size && all[1] != 0 && rank == 0)
    std::fprintf(stderr,
                 "overlap-run: the ranks were given different --min-size values (%lld to %lld "
                 "bytes), which would route a collective differently on different ranks: "
                 "collectives stay MPI's own\n",
                 -all[4], all[3]);
  if (all[0] != 0) start_partitioned_routes();
  const bool routed = all[1] != 0 && same_size && start_collective_routes(all[2] != 0);
  // Who makes the duplicates of the program's communicators, for a program that calls
  // liboverlap itself: this layer where it routes collectives, else liboverlap
  // (creation_duplicates.cpp; with Open MPI: MPI_COMM_WORLD's right here).
  ovx_private_duplicates_at_creation(routed ? 1 : 0);
}

// auto: liboverlap's rule on this rank's CPU set, the launcher's ranks on the node and
// the program's OpenMP threads (if any), before MPI_Init; what it saw goes to the report,
// and with OVERLAP_VERBOSE=1 to stderr.
void resolve_auto_policy(Runtime& rt) {
  OVX_Progress p = OVX_PROGRESS_SHARED;
  const char* why = nullptr;
  if (OVX_Progress_choose(0, 0, &p, &why) != MPI_SUCCESS) p = OVX_PROGRESS_SHARED;
  rt.policy = p == OVX_PROGRESS_CALLER      ? Policy::caller
              : p == OVX_PROGRESS_DEDICATED ? Policy::dedicated
                                            : Policy::shared;
  rt.policy_reason = std::string("auto: ") + (why != nullptr ? why : "");
  const char* verbose = std::getenv("OVERLAP_VERBOSE");
  if (verbose != nullptr && std::atoi(verbose) != 0)
    std::fprintf(stderr, "overlap-run: progress policy '%s' (%s)\n",
                 std::string(policy_name(rt.policy)).c_str(), rt.policy_reason.c_str());
}

int core_init(int* argc, char*** argv, int required, int* provided, int thread_form) {
  Runtime& rt = runtime();
  try {
    rt.settings = settings_from_environment();
  } catch (const UsageError& e) {
    // The preload used without overlap-run: checked like overlap-run's options, before MPI.
    const char* rank = std::getenv("OMPI_COMM_WORLD_RANK");
    if (rank == nullptr) rank = std::getenv("PMI_RANK");
    if (rank == nullptr || std::atoi(rank) == 0)
      std::fprintf(stderr, "overlap-run: %s\n", e.what());
    std::fflush(stderr);
    _exit(2);
  }
  rt.policy = rt.settings.policy.value_or(Policy::automatic);
  if (rt.policy == Policy::automatic) resolve_auto_policy(rt);
  rt.program_required = thread_form != 0 ? required : MPI_THREAD_SINGLE;
  // The engine's thread calls MPI beside the program (shared, dedicated), and so may its
  // rescue thread under caller with MPICH: ask for MPI_THREAD_MULTIPLE whenever enabled.
  const int ask = rt.settings.enabled ? MPI_THREAD_MULTIPLE : rt.program_required;
  int got = MPI_THREAD_SINGLE;
  const int rc = PMPI_Init_thread(argc, argv, std::max(ask, rt.program_required), &got);
  if (rc != MPI_SUCCESS) return rc;
  rt.mpi_provided = got;
  int* tag_ub = nullptr;
  int has_tag_ub = 0;
  PMPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &tag_ub, &has_tag_ub);
  if (has_tag_ub != 0 && tag_ub != nullptr) rt.tag_ub = *tag_ub;
  rt.program_provided = std::min(rt.program_required, got);
  if (provided != nullptr) *provided = rt.program_provided;
  // UCX (loaded by MPI_Init) may have put its memory hooks on the shim's exports, which
  // are there with --off too.
  follow_ucx_memory_events();
  if (!rt.settings.enabled) {
    ovx_private_duplicates_at_creation(0);  // a job-wide setting: every rank is here
    return MPI_SUCCESS;
  }
  if (rt.policy != Policy::caller && got < MPI_THREAD_MULTIPLE) {
    rt.policy_note = "MPI did not provide MPI_THREAD_MULTIPLE, which a progress thread needs";
    rt.policy = Policy::caller;
  }
  if (argc != nullptr && argv != nullptr && *argv != nullptr) {
    for (int i = 0; i < *argc; ++i) rt.argv.emplace_back((*argv)[i]);
  }
  rt.page = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
  rt.mem_fd = open("/proc/self/mem", O_RDWR | O_CLOEXEC);
  if (rt.mem_fd < 0) {
    std::fprintf(stderr, "overlap-run: cannot open /proc/self/mem; running without interception\n");
    agree_on_routes();  // every rank takes part, this one routing nothing
    return MPI_SUCCESS;
  }
  rt.pid = static_cast<int>(getpid());
  rt.glibc_heap = free_is_glibcs(*rt.shim);
  std::string engine_error;
  rt.progress = ProgressDriver::acquire(rt.policy, engine_error);
  if (!rt.progress && rt.policy != Policy::caller) {
    // e.g. MPI gave less than MPI_THREAD_MULTIPLE only to the thread policies' needs.
    rt.policy_note =
        "the '" + std::string(policy_name(rt.policy)) + "' policy could not start: " + engine_error;
    rt.policy = Policy::caller;
    rt.progress = ProgressDriver::acquire(rt.policy, engine_error);
  }
  if (!rt.progress) {
    close(rt.mem_fd);
    rt.mem_fd = -1;
    int rank = 0;
    PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0)
      std::fprintf(stderr,
                   "overlap-run: liboverlap's progress engine cannot run here (%s); running "
                   "without interception\n",
                   engine_error.c_str());
    agree_on_routes();
    return MPI_SUCCESS;
  }
  rt.progress_mechanism = rt.progress->mechanism();
  init_placement();
  install_fault_handler();
  pthread_atfork(prepare_fork, nullptr, in_forked_child);
  rt.active = true;
  agree_on_routes();
  open_straight_path(rt);
  return MPI_SUCCESS;
}

int core_finalize() {
  Runtime& rt = runtime();
  if (rt.active) {
    close_straight_path(rt);  // every call is counted before the report
    settle_all();
    reap();
    rt.progress.reset();  // our use of the engine ends
    stop_partitioned_routes();
    rt.active = false;
    // The report's gather runs once the engine's thread is gone: with that thread still
    // calling MPI beside it, MPICH 4.0.2 over UCX/TCP hung in the MPI_Finalize after it now
    // and then (run_report.cpp has the figures).
    ProgressDriver::before_mpi_finalize();
    write_run_report(rt);
  }
  ProgressDriver::before_mpi_finalize();
  return PMPI_Finalize();
}

ovx_core make_table() {
  ovx_core t{};
  t.MPI_Send = core_send;
  t.MPI_Rsend = core_rsend;
  t.MPI_Ssend = core_ssend;
  t.MPI_Bsend = core_bsend;
  t.MPI_Recv = core_recv;
  t.MPI_Sendrecv = core_sendrecv;
  t.MPI_Sendrecv_replace = core_sendrecv_replace;
  t.MPI_Get_count = core_get_count;
  t.MPI_Get_elements = core_get_elements;
  t.MPI_Get_elements_x = core_get_elements_x;
#if MPI_VERSION >= 4
  t.MPI_Get_count_c = core_get_count_c;
  t.MPI_Get_elements_c = core_get_elements_c;
#endif
  t.MPI_Test_cancelled = core_test_cancelled;
  t.MPI_Query_thread = core_query_thread;
  t.MPI_Finalize = core_finalize;
  t.init = core_init;
  t.fence = core_fence;
  t.expose = stop_moving_pages;
  add_fences(t);
  t.poll = core_poll;
  t.settle = core_settle;
  t.settle_free = core_settle_free;
  t.active = [] { return runtime().active ? 1 : 0; };
  t.deferred = [] { return static_cast<long>(runtime().sites.deferred_total()); };
  t.min_size = [] { return runtime().active ? runtime().settings.min_bytes : -1L; };
  t.policy = []() -> const char* {
    return runtime().active ? policy_name(runtime().policy).data() : nullptr;  // literals
  };
  t.families = []() -> const char* {
    if (!runtime().active) return nullptr;
    static const std::string text = families_text(runtime().settings.families);  // fixed
    return text.c_str();
  };
  add_collective_routes(t);
  add_partitioned_routes(t);  // its fallbacks are the entries above
  add_request_calls(t);       // last: wraps the routes' Wait/Test entries
  return t;
}

}  // namespace

}  // namespace overlap::intercept

extern "C" __attribute__((visibility("default"))) const ovx_core* ovx_intercept_core_start(
    const ovx_shim* shim) {
  using namespace overlap::intercept;
  if (shim == nullptr || shim->abi != OVX_SHIM_ABI) return nullptr;
  runtime().shim = shim;
  static const ovx_core table = make_table();
  return &table;
}
