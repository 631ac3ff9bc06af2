// The C API (include/overlap/overlap.h): argument checks with MPI's meaning of every
// argument, then a task graph handed to the engine behind a generalized request.
#include "overlap/overlap.h"

#include <climits>
#include <cstdio>
#include <memory>
#include <optional>
#include <string>

#include "collectives/algorithm_choice.hpp"
#include "collectives/algorithms.hpp"
#include "collectives/application_use.hpp"
#include "collectives/buffer_layout.hpp"
#include "collectives/calibration.hpp"
#include "collectives/comm_context.hpp"
#include "collectives/cost_params.hpp"
#include "collectives/intercept_abi.h"
#include "collectives/reduction.hpp"
#include "collectives/typemap_shadow.hpp"
#include "progress/auto_policy.hpp"
#include "progress/engine_runtime.hpp"
#include "progress/generalized_request.hpp"
#include "progress/mpi_errors.hpp"
#include "progress/mpi_transport.hpp"

namespace {

using namespace overlap;
using collectives::Group;
using progress::ErrorKind;
using progress::TaskGraph;

int fail(const char* fn, MPI_Comm comm, ErrorKind kind, const std::string& why) {
  return progress::report_call_error(fn, comm, kind, why);
}

int refuse_in_child(const char* fn) { return progress::refuse_in_forked_child(fn); }

// Why a call is refused; most refusals are about an argument.
struct Refusal {
  std::string text;
  ErrorKind kind = ErrorKind::argument;
  Refusal() = default;
  Refusal(std::string t, ErrorKind k = ErrorKind::argument) : text(std::move(t)), kind(k) {}
  bool empty() const { return text.empty(); }
};

Refusal check_root(int root, int size) {
  if (root >= 0 && root < size) return {};
  return {"root=" + std::to_string(root) + " is not a rank of the communicator (allowed: 0.." +
              std::to_string(size - 1) + ")",
          ErrorKind::root};
}

Refusal check_total(std::size_t block, int size) {
  const auto total = static_cast<unsigned long long>(block) * static_cast<unsigned long long>(size);
  if (total <= static_cast<unsigned long long>(INT_MAX)) return {};
  return {std::to_string(size) + " blocks of " + std::to_string(block) + " bytes exceed " +
              std::to_string(INT_MAX) + " bytes in one buffer",
          ErrorKind::count};
}

// Checks run with the communicator's rank and size and return a Refusal (empty: fine);
// build adds this rank's tasks to the graph.
template <class Check, class Build>
int run_collective(const char* fn, MPI_Comm comm, MPI_Request* request, Check check, Build build) {
  if (progress::in_forked_child()) return refuse_in_child(fn);
  progress::safe_point();
  if (comm == MPI_COMM_NULL)
    return fail(fn, comm, ErrorKind::communicator, "communicator is MPI_COMM_NULL");
  std::string error;
  progress::ProgressEngine* engine = collectives::application_engine(error);
  if (engine == nullptr) return fail(fn, comm, ErrorKind::state, error);
  auto ctx = collectives::context_for(comm, error);
  if (!ctx) return fail(fn, comm, ErrorKind::communicator, error);
  collectives::note_collective_called();  // the cost model's parameters stay as they are
  // Every rank takes the collective's number before any check, whatever the outcome: a
  // call refused on some ranks only (the root's arguments) must not shift later ones.
  const std::uint64_t seq = ctx->next_sequence();
  if (request == nullptr) return fail(fn, comm, ErrorKind::argument, "request is NULL");
  // The hidden duplicate could not be made: nothing can run on this communicator.
  if (ctx->failed()) return fail(fn, comm, ErrorKind::other, ctx->failure());
  *request = MPI_REQUEST_NULL;
  if (Refusal r = check(ctx->rank(), ctx->size()); !r.empty())
    return fail(fn, comm, r.kind, r.text);
  if (const std::string& bad = collectives::forced_algorithms().error; !bad.empty())
    return fail(fn, comm, ErrorKind::argument, bad);

  collectives::Choice choice{collectives::forced_algorithms().forced, collectives::kLatencyBytes};
  if (ctx->within_world())
    choice.latency_bytes = collectives::latency_bytes(collectives::process_cost_params());
  auto graph = std::make_shared<TaskGraph>(
      std::make_unique<progress::MpiTransport>(ctx->comm(), ctx->tag_base(seq), ctx));
  build(*graph, Group{ctx->rank(), ctx->size()}, choice);
  ctx->submitted(seq);
  // A graph outlives its gate; a failed duplication fails every collective waiting for it.
  // The transport keeps the context alive until after the graph's completion callbacks,
  // so neither closure needs a reference of its own (and both fit in std::function
  // without an allocation).
  graph->start_when([c = ctx.get(), seq](TaskGraph& g) {
    if (c->try_start(seq)) return true;
    if (c->failed()) g.fail(c->failure_code());
    return false;
  });
  graph->on_complete([c = ctx.get(), seq] { c->completed(seq); });
  const int rc = progress::start_generalized_request(*engine, std::move(graph), request);
  if (rc == MPI_SUCCESS) return rc;
  ctx->completed(seq);
  return fail(fn, comm, ErrorKind::state, "could not create the generalized request");
}

// Reductions: bytes and kernel of (count, datatype, op).
struct ReductionArgs {
  std::size_t bytes = 0;
  collectives::ReduceKernel kernel;
  Refusal error;
};
ReductionArgs reduction_args(int count, MPI_Datatype type, MPI_Op op) {
  ReductionArgs a;
  auto layout = collectives::contiguous_bytes(count, type, "count", "datatype");
  if (!layout.error.empty()) {
    a.error = Refusal(layout.error, layout.kind);
    return a;
  }
  auto found = collectives::find_reduction(op, type);
  if (found.kernel.fn == nullptr) {
    a.error = Refusal(found.error, ErrorKind::operation);
    return a;
  }
  a.bytes = layout.bytes;
  a.kernel = found.kernel;
  return a;
}

// One side of a send/receive pair, with the argument names errors should use.
struct Side {
  const void* buf;
  int count;
  MPI_Datatype type;
  const char* count_name;
  const char* type_name;
};
Side send_side(const void* buf, int count, MPI_Datatype type) {
  return {buf, count, type, "sendcount", "sendtype"};
}
Side recv_side(const void* buf, int count, MPI_Datatype type) {
  return {buf, count, type, "recvcount", "recvtype"};
}

// Block size of the "all" and rooted collectives: `block` describes one block; `other`
// must describe the same number of bytes unless its buffer is MPI_IN_PLACE.
struct BlockArgs {
  std::size_t block = 0;
  Refusal error;
};
BlockArgs block_args(const Side& block, const Side& other, int size) {
  BlockArgs b;
  auto mine = collectives::buffer_bytes(block.count, block.type, block.count_name, block.type_name,
                                        collectives::Layout::any);
  if (!mine.error.empty()) {
    b.error = Refusal(mine.error, mine.kind);
    return b;
  }
  if (other.buf != MPI_IN_PLACE) {
    auto theirs = collectives::buffer_bytes(other.count, other.type, other.count_name,
                                            other.type_name, collectives::Layout::any);
    if (!theirs.error.empty()) {
      b.error = Refusal(theirs.error, theirs.kind);
      return b;
    }
    if (theirs.bytes != mine.bytes) {
      b.error = std::string(other.count_name) + " x " + other.type_name + " is " +
                std::to_string(theirs.bytes) + " bytes but " + block.count_name + " x " +
                block.type_name + " is " + std::to_string(mine.bytes) +
                " bytes (they must describe the same data)";
      return b;
    }
  }
  b.block = mine.bytes;
  b.error = check_total(b.block, size);
  return b;
}

const void* in_place_to_null(const void* buf) { return buf == MPI_IN_PLACE ? nullptr : buf; }

using collectives::Choice;

// Element counts of checked (non-negative) arguments, for the typemap shadows.
using Shadow = collectives::TypemapShadow;
using Moved = Shadow::Moved;
std::size_t to_size(int count) { return static_cast<std::size_t>(count); }
std::size_t blocks(int count, Group grp) { return to_size(count) * to_size(grp.size); }
// An output buffer that, with sendbuf = MPI_IN_PLACE, also holds the input.
Shadow::Use output_use(const void* sendbuf) {
  return sendbuf == MPI_IN_PLACE ? Shadow::Use::read_write : Shadow::Use::write;
}

OVX_Progress to_ovx(progress::ProgressPolicy p) {
  switch (p) {
    case progress::ProgressPolicy::caller:
      return OVX_PROGRESS_CALLER;
    case progress::ProgressPolicy::shared:
      return OVX_PROGRESS_SHARED;
    case progress::ProgressPolicy::dedicated:
      return OVX_PROGRESS_DEDICATED;
  }
  return OVX_PROGRESS_DEFAULT;
}

}  // namespace

extern "C" {

int OVX_Init(OVX_Progress policy) {
  if (progress::in_forked_child()) return refuse_in_child("OVX_Init");
  std::optional<progress::ProgressPolicy> requested;
  switch (policy) {
    case OVX_PROGRESS_DEFAULT:
      break;
    case OVX_PROGRESS_CALLER:
      requested = progress::ProgressPolicy::caller;
      break;
    case OVX_PROGRESS_SHARED:
      requested = progress::ProgressPolicy::shared;
      break;
    case OVX_PROGRESS_DEDICATED:
      requested = progress::ProgressPolicy::dedicated;
      break;
    default:
      return fail("OVX_Init", MPI_COMM_WORLD, ErrorKind::argument,
                  "policy=" + std::to_string(static_cast<int>(policy)) +
                      " is not an OVX_Progress value (allowed: OVX_PROGRESS_DEFAULT, _CALLER, "
                      "_SHARED, _DEDICATED)");
  }
  progress::safe_point();
  std::string error;
  if (collectives::application_start(requested, error) == nullptr)
    return fail("OVX_Init", MPI_COMM_WORLD, ErrorKind::state, error);
  return MPI_SUCCESS;
}

int OVX_Finalize(void) {
  if (progress::in_forked_child()) return MPI_SUCCESS;
  collectives::application_finalize();
  progress::safe_point();
  return MPI_SUCCESS;
}

int OVX_Initialized(int* flag) {
  if (flag == nullptr)
    return fail("OVX_Initialized", MPI_COMM_WORLD, ErrorKind::argument, "flag is NULL");
  *flag = !progress::in_forked_child() && collectives::application_active() ? 1 : 0;
  return MPI_SUCCESS;
}

int OVX_Get_progress(OVX_Progress* policy) {
  if (progress::in_forked_child()) return refuse_in_child("OVX_Get_progress");
  auto* e = progress::running_engine();
  if (e == nullptr || !collectives::application_active())
    return fail("OVX_Get_progress", MPI_COMM_WORLD, ErrorKind::state,
                "liboverlap is not initialised");
  if (policy == nullptr)
    return fail("OVX_Get_progress", MPI_COMM_WORLD, ErrorKind::argument, "policy is NULL");
  *policy = to_ovx(e->policy());
  return MPI_SUCCESS;
}

int OVX_Poll(int* work) {
  if (progress::in_forked_child()) return refuse_in_child("OVX_Poll");
  progress::safe_point();
  auto* e = progress::running_engine();
  const int w = e == nullptr ? 0 : e->progress();
  if (work != nullptr) *work = w;
  return MPI_SUCCESS;
}

int OVX_Request_abandon(MPI_Request* request) {
  if (progress::in_forked_child()) return refuse_in_child("OVX_Request_abandon");
  progress::safe_point();
  // Not ours: MPI_ERR_REQUEST without an error handler, so a caller can fall back to
  // MPI_Cancel for other requests (overlap::Request does).
  return progress::abandon_generalized_request(request);
}

const char* OVX_Algorithm(const char* collective, MPI_Count bytes, MPI_Count count, int size) {
  if (collective == nullptr || bytes < 0 || count < 0 || size < 1) return nullptr;
  const auto& forced = collectives::forced_algorithms();
  if (!forced.error.empty()) return nullptr;
  const collectives::Choice choice{forced.forced,
                                   collectives::latency_bytes(collectives::process_cost_params())};
  return collectives::algorithm_name(collective, static_cast<std::size_t>(bytes),
                                     static_cast<std::size_t>(count), size, choice);
}

int OVX_Calibrate(void) {
  if (progress::in_forked_child()) return refuse_in_child("OVX_Calibrate");
  int initialized = 0, finalized = 0;
  PMPI_Initialized(&initialized);
  PMPI_Finalized(&finalized);
  if (!initialized || finalized)
    return fail("OVX_Calibrate", MPI_COMM_WORLD, ErrorKind::state,
                "MPI is not initialised (call OVX_Calibrate between MPI_Init and MPI_Finalize)");
  progress::safe_point();
  std::string error;
  const int rc = collectives::calibrate_world(error);
  if (rc == MPI_SUCCESS) return rc;
  const ErrorKind kind = rc == MPI_ERR_ARG     ? ErrorKind::argument
                         : rc == MPI_ERR_OTHER ? ErrorKind::state
                                               : ErrorKind::other;
  return fail("OVX_Calibrate", MPI_COMM_WORLD, kind, error);
}

int OVX_Get_cost_model(double* latency_seconds, double* bytes_per_second, const char** source) {
  const collectives::CostParams p = collectives::process_cost_params();
  if (latency_seconds != nullptr) *latency_seconds = p.latency_s;
  if (bytes_per_second != nullptr) *bytes_per_second = p.bandwidth;
  if (source != nullptr) *source = collectives::cost_source_name(p.source);
  return MPI_SUCCESS;
}

const char* OVX_Progress_reason(void) {
  thread_local std::string reason;
  auto* e = progress::running_engine();
  if (progress::in_forked_child() || e == nullptr || !collectives::application_active())
    return nullptr;
  reason = e->config().reason;
  return reason.c_str();
}

int OVX_Progress_choose(int threads, int leave_core, OVX_Progress* policy, const char** reason) {
  thread_local std::string why;
  if (policy == nullptr || threads < 0) {
    std::fprintf(stderr, "liboverlap: OVX_Progress_choose: %s\n",
                 policy == nullptr ? "policy is NULL" : "threads is negative");
    return MPI_ERR_ARG;
  }
  const progress::AutoChoice c =
      progress::resolve_auto(progress::gather_auto_inputs(threads, leave_core != 0));
  *policy = to_ovx(c.policy);
  why = c.reason;
  if (reason != nullptr) *reason = why.c_str();
  return MPI_SUCCESS;
}

const char* OVX_Progress_name(OVX_Progress policy) {
  switch (policy) {
    case OVX_PROGRESS_CALLER:
      return "caller";
    case OVX_PROGRESS_SHARED:
      return "shared";
    case OVX_PROGRESS_DEDICATED:
      return "dedicated";
    default:
      return "default";
  }
}

int OVX_Ibarrier(MPI_Comm comm, MPI_Request* request) {
  return run_collective(
      "OVX_Ibarrier", comm, request, [](int, int) -> Refusal { return {}; },
      [](TaskGraph& g, Group grp, const Choice&) { collectives::build_ibarrier(g, grp); });
}

int OVX_Ibcast(void* buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm,
               MPI_Request* request) {
  collectives::BufferBytes layout;
  return run_collective(
      "OVX_Ibcast", comm, request,
      [&](int, int size) -> Refusal {
        layout = collectives::buffer_bytes(count, datatype, "count", "datatype",
                                           collectives::Layout::any);
        return layout.error.empty() ? check_root(root, size) : Refusal(layout.error, layout.kind);
      },
      [&](TaskGraph& g, Group grp, const Choice& c) {
        Shadow buf(g, buffer, to_size(count), datatype,
                   grp.rank == root ? Shadow::Use::read : Shadow::Use::write, Moved{true});
        collectives::build_ibcast(g, buf.buffer(), layout.bytes, root, grp,
                                  collectives::bcast_algorithm(layout.bytes, grp.size, c));
        buf.finish();
      });
}

int OVX_Ireduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                int root, MPI_Comm comm, MPI_Request* request) {
  ReductionArgs a;
  return run_collective(
      "OVX_Ireduce", comm, request,
      [&](int rank, int size) -> Refusal {
        a = reduction_args(count, datatype, op);
        if (!a.error.empty()) return a.error;
        if (Refusal e = check_root(root, size); !e.empty()) return e;
        if (sendbuf == MPI_IN_PLACE && rank != root)
          return std::string("sendbuf is MPI_IN_PLACE on a rank that is not the root");
        return {};
      },
      [&](TaskGraph& g, Group grp, const Choice& c) {
        const auto n = to_size(count);
        Shadow in(g, in_place_to_null(sendbuf), n, datatype, Shadow::Use::read);
        Shadow out(g, grp.rank == root ? recvbuf : nullptr, n, datatype, output_use(sendbuf));
        collectives::build_ireduce(
            g, in.buffer(), out.buffer(), n, a.kernel, root, grp,
            collectives::reduce_algorithm(n * a.kernel.elem_size, n, grp.size, c));
        out.finish();
        in.finish();
      });
}

int OVX_Iallreduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                   MPI_Comm comm, MPI_Request* request) {
  ReductionArgs a;
  return run_collective(
      "OVX_Iallreduce", comm, request,
      [&](int, int) -> Refusal {
        a = reduction_args(count, datatype, op);
        return a.error;
      },
      [&](TaskGraph& g, Group grp, const Choice& c) {
        const auto n = to_size(count);
        Shadow in(g, in_place_to_null(sendbuf), n, datatype, Shadow::Use::read);
        Shadow out(g, recvbuf, n, datatype, output_use(sendbuf));
        collectives::build_iallreduce(
            g, in.buffer(), out.buffer(), n, a.kernel, grp,
            collectives::allreduce_algorithm(n * a.kernel.elem_size, n, grp.size, c));
        out.finish();
        in.finish();
      });
}

int OVX_Iallgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                   int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request) {
  BlockArgs b;
  return run_collective(
      "OVX_Iallgather", comm, request,
      [&](int, int size) -> Refusal {
        b = block_args(recv_side(recvbuf, recvcount, recvtype),
                       send_side(sendbuf, sendcount, sendtype), size);
        return b.error;
      },
      [&](TaskGraph& g, Group grp, const Choice& c) {
        Shadow in(g, sendbuf, to_size(sendcount), sendtype, Shadow::Use::read,
                  Moved{sendbuf != MPI_IN_PLACE});
        Shadow out(g, recvbuf, blocks(recvcount, grp), recvtype, output_use(sendbuf), Moved{true});
        collectives::build_iallgather(g, in.buffer(), out.buffer(), b.block, grp,
                                      collectives::allgather_algorithm(b.block, grp.size, c));
        out.finish();
        in.finish();
      });
}

int OVX_Ialltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                  int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request) {
  BlockArgs b;
  return run_collective(
      "OVX_Ialltoall", comm, request,
      [&](int, int size) -> Refusal {
        b = block_args(recv_side(recvbuf, recvcount, recvtype),
                       send_side(sendbuf, sendcount, sendtype), size);
        return b.error;
      },
      [&](TaskGraph& g, Group grp, const Choice& c) {
        Shadow in(g, sendbuf, blocks(sendcount, grp), sendtype, Shadow::Use::read,
                  Moved{sendbuf != MPI_IN_PLACE});
        Shadow out(g, recvbuf, blocks(recvcount, grp), recvtype, output_use(sendbuf), Moved{true});
        collectives::build_ialltoall(g, in.buffer(), out.buffer(), b.block, grp,
                                     collectives::alltoall_algorithm(b.block, grp.size, c));
        out.finish();
        in.finish();
      });
}

int OVX_Igather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                MPI_Request* request) {
  std::size_t block = 0;
  return run_collective(
      "OVX_Igather", comm, request,
      [&](int rank, int size) -> Refusal {
        if (Refusal e = check_root(root, size); !e.empty()) return e;
        if (rank == root) {
          BlockArgs b = block_args(recv_side(recvbuf, recvcount, recvtype),
                                   send_side(sendbuf, sendcount, sendtype), size);
          block = b.block;
          return b.error;
        }
        if (sendbuf == MPI_IN_PLACE)
          return std::string("sendbuf is MPI_IN_PLACE on a rank that is not the root");
        auto s = collectives::buffer_bytes(sendcount, sendtype, "sendcount", "sendtype",
                                           collectives::Layout::any);
        block = s.bytes;
        return s.error.empty() ? check_total(block, size) : Refusal(s.error, s.kind);
      },
      [&](TaskGraph& g, Group grp, const Choice& c) {
        Shadow in(g, sendbuf, to_size(sendcount), sendtype, Shadow::Use::read,
                  Moved{sendbuf != MPI_IN_PLACE});
        Shadow out(g, recvbuf, blocks(recvcount, grp), recvtype, output_use(sendbuf),
                   Moved{grp.rank == root});
        collectives::build_igather(g, in.buffer(), out.buffer(), block, root, grp,
                                   collectives::gather_algorithm(block, grp.size, c));
        out.finish();
        in.finish();
      });
}

int OVX_Iscatter(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                 int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                 MPI_Request* request) {
  std::size_t block = 0;
  return run_collective(
      "OVX_Iscatter", comm, request,
      [&](int rank, int size) -> Refusal {
        if (Refusal e = check_root(root, size); !e.empty()) return e;
        if (rank != root) {
          if (recvbuf == MPI_IN_PLACE)
            return std::string("recvbuf is MPI_IN_PLACE on a rank that is not the root");
          auto r = collectives::buffer_bytes(recvcount, recvtype, "recvcount", "recvtype",
                                             collectives::Layout::any);
          block = r.bytes;
          return r.error.empty() ? check_total(block, size) : Refusal(r.error, r.kind);
        }
        // At the root the send side describes the blocks; recv may be MPI_IN_PLACE.
        BlockArgs b = block_args(send_side(sendbuf, sendcount, sendtype),
                                 recv_side(recvbuf, recvcount, recvtype), size);
        block = b.block;
        return b.error;
      },
      [&](TaskGraph& g, Group grp, const Choice& c) {
        Shadow in(g, sendbuf, blocks(sendcount, grp), sendtype, Shadow::Use::read,
                  Moved{grp.rank == root});
        Shadow out(g, recvbuf, to_size(recvcount), recvtype, Shadow::Use::write,
                   Moved{recvbuf != MPI_IN_PLACE});
        collectives::build_iscatter(g, in.buffer(), out.buffer(), block, root, grp,
                                    collectives::scatter_algorithm(block, grp.size, c));
        out.finish();
        in.finish();
      });
}

int OVX_Ireduce_scatter_block(const void* sendbuf, void* recvbuf, int recvcount,
                              MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                              MPI_Request* request) {
  ReductionArgs a;
  return run_collective(
      "OVX_Ireduce_scatter_block", comm, request,
      [&](int, int size) -> Refusal {
        a = reduction_args(recvcount, datatype, op);
        if (!a.error.empty()) return a.error;
        return check_total(a.bytes, size);
      },
      [&](TaskGraph& g, Group grp, const Choice& c) {
        // In place, recv holds every block on input and this rank's result on output.
        const auto n = to_size(recvcount);
        Shadow in(g, in_place_to_null(sendbuf), blocks(recvcount, grp), datatype,
                  Shadow::Use::read);
        Shadow out(g, recvbuf, sendbuf == MPI_IN_PLACE ? blocks(recvcount, grp) : n, datatype,
                   output_use(sendbuf));
        collectives::build_ireduce_scatter_block(
            g, in.buffer(), out.buffer(), n, a.kernel, grp,
            collectives::reduce_scatter_block_algorithm(n * a.kernel.elem_size, grp.size, c));
        out.finish(n);
        in.finish();
      });
}

// The same functions under the names of intercept_abi.h (aliases: one body, and a name
// that an interposition library does not define).
#define OVX_PRIVATE_ALIAS(private_name, public_name) \
  extern __typeof__(public_name) private_name __attribute__((alias(#public_name)));
OVX_PRIVATE_ALIAS(ovx_private_ibarrier, OVX_Ibarrier)
OVX_PRIVATE_ALIAS(ovx_private_ibcast, OVX_Ibcast)
OVX_PRIVATE_ALIAS(ovx_private_ireduce, OVX_Ireduce)
OVX_PRIVATE_ALIAS(ovx_private_iallreduce, OVX_Iallreduce)
OVX_PRIVATE_ALIAS(ovx_private_iallgather, OVX_Iallgather)
OVX_PRIVATE_ALIAS(ovx_private_ialltoall, OVX_Ialltoall)
OVX_PRIVATE_ALIAS(ovx_private_igather, OVX_Igather)
OVX_PRIVATE_ALIAS(ovx_private_iscatter, OVX_Iscatter)
OVX_PRIVATE_ALIAS(ovx_private_ireduce_scatter_block, OVX_Ireduce_scatter_block)
#undef OVX_PRIVATE_ALIAS

int ovx_private_adopt_duplicate(MPI_Comm comm, MPI_Comm dup) {
  std::string error;
  return collectives::context_for(comm, dup, error) ? MPI_SUCCESS : MPI_ERR_COMM;
}

void ovx_private_drop_duplicate(MPI_Comm comm) { collectives::drop_context(comm); }

int ovx_private_calibrate(char* why, int len) {
  std::string error;
  const int rc = collectives::calibrate_world(error);
  if (why != nullptr && len > 0)
    std::snprintf(why, static_cast<std::size_t>(len), "%s", error.c_str());
  return rc;
}

const char* ovx_private_reduction_refusal(MPI_Op op, MPI_Datatype type) {
  thread_local std::string why;
  auto found = collectives::find_reduction(op, type);
  if (found.kernel.fn != nullptr) return nullptr;
  why = found.error;
  return why.c_str();
}

}  // extern "C"
