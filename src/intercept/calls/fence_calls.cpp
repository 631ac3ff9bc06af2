// The core's fences limited to what a call can observe (shim_api.h, fence_*): the calling
// thread's deferred transfers, then the transfers of any thread that conflict with the
// call's buffers, as footprint.hpp computes them from the arguments and what MPI says of
// the types and the communicator. docs/overlap-run.md ("Fences") has why.
#include "intercept/calls/fence_calls.hpp"

#include "intercept/runtime/program_requests.hpp"

#include "intercept/runtime/core_runtime.hpp"
#include "intercept/runtime/footprint.hpp"

namespace overlap::intercept {

namespace {

static_assert(static_cast<int>(Group::one) == OVX_ONE &&
              static_cast<int>(Group::peers) == OVX_PEERS &&
              static_cast<int>(Group::either) == OVX_EITHER &&
              static_cast<int>(Group::in) == OVX_IN && static_cast<int>(Group::out) == OVX_OUT);

Group group(int g) { return static_cast<Group>(g); }

// What the footprint needs of a communicator (none for calls without one).
CommFacts facts_of(MPI_Comm comm) {
  CommFacts f;
  if (comm == MPI_COMM_NULL) return f;
  PMPI_Comm_rank(comm, &f.rank);
  PMPI_Comm_size(comm, &f.size);
  int inter = 0;
  PMPI_Comm_test_inter(comm, &inter);
  if (inter != 0) {
    PMPI_Comm_remote_size(comm, &f.remote_size);
    return f;
  }
  int topology = MPI_UNDEFINED;
  PMPI_Topo_test(comm, &topology);
  if (topology == MPI_CART) {
    int dims = 0;
    PMPI_Cartdim_get(comm, &dims);
    f.in_degree = f.out_degree = 2 * dims;
  } else if (topology == MPI_GRAPH) {
    PMPI_Graph_neighbors_count(comm, f.rank, &f.in_degree);
    f.out_degree = f.in_degree;
  } else if (topology == MPI_DIST_GRAPH) {
    int weighted = 0;
    PMPI_Dist_graph_neighbors_count(comm, &f.in_degree, &f.out_degree, &weighted);
  }
  return f;
}

// The fence: own transfers, then those conflicting with the footprint `describe` adds.
// After a call that returned a request (kinds *_REQ, MPI accepted it) the footprint is only
// recorded for that request (program_requests.hpp).
template <typename Describe>
void observe(MPI_Comm comm, Describe&& describe) {
  Runtime& rt = runtime();
  if (!rt.active) return;
  if (FootprintRecord& record = request_footprint(); record.on) {
    Footprint f(type_extent, facts_of(comm));
    describe(f);
    record.unknown = f.whole_process();
    record.spans = f.spans();
    return;
  }
  if (!rt.progress->background()) rt.progress->poll_in_call();  // caller: a chance to progress
  settle_own();
  Footprint f(type_extent, facts_of(comm));
  describe(f);
  if (f.whole_process()) {
    settle_all();
    return;
  }
  for (const Span& s : f.spans()) settle(s.lo, s.hi, s.write);
}

template <class C>
void fence_buffer(const void* buf, C count, MPI_Datatype type, int write) {
  observe(MPI_COMM_NULL, [&](Footprint& f) { buffer_shape(f, buf, count, type, write != 0); });
}
void fence_bytes(const void* buf, MPI_Count n, int write) {
  observe(MPI_COMM_NULL, [&](Footprint& f) { f.bytes(buf, n, write != 0); });
}
template <class C>
void fence_pair(const void* sendbuf, const void* recvbuf, C count, MPI_Datatype type) {
  observe(MPI_COMM_NULL, [&](Footprint& f) { pair_shape(f, sendbuf, recvbuf, count, type); });
}
template <class C>
void fence_exchange(const void* sb, C sc, MPI_Datatype st, int sg, const void* rb, C rc,
                    MPI_Datatype rt, int rg, MPI_Comm comm) {
  observe(comm,
          [&](Footprint& f) { exchange_shape(f, sb, sc, st, group(sg), rb, rc, rt, group(rg)); });
}
template <class C>
void fence_bcast(const void* buf, C count, MPI_Datatype type, int root, MPI_Comm comm) {
  observe(comm, [&](Footprint& f) { bcast_shape(f, buf, count, type, root); });
}
template <class C>
void fence_reduce(const void* sb, const void* rb, C count, MPI_Datatype type, int root,
                  MPI_Comm comm) {
  observe(comm, [&](Footprint& f) { reduce_shape(f, sb, rb, count, type, root); });
}
template <class C>
void fence_gather(const void* sb, C sc, MPI_Datatype st, const void* rb, C rc, MPI_Datatype rt,
                  int root, MPI_Comm comm) {
  observe(comm, [&](Footprint& f) { gather_shape(f, sb, sc, st, rb, rc, rt, root); });
}
template <class C>
void fence_scatter(const void* sb, C sc, MPI_Datatype st, const void* rb, C rc, MPI_Datatype rt,
                   int root, MPI_Comm comm) {
  observe(comm, [&](Footprint& f) { scatter_shape(f, sb, sc, st, rb, rc, rt, root); });
}
template <class C, class D>
void fence_gatherv(const void* sb, C sc, MPI_Datatype st, const void* rb, const C* rcs,
                   const D* displs, MPI_Datatype rt, int root, MPI_Comm comm) {
  observe(comm, [&](Footprint& f) { gatherv_shape(f, sb, sc, st, rb, rcs, displs, rt, root); });
}
template <class C, class D>
void fence_scatterv(const void* sb, const C* scs, const D* displs, MPI_Datatype st, const void* rb,
                    C rc, MPI_Datatype rt, int root, MPI_Comm comm) {
  observe(comm, [&](Footprint& f) { scatterv_shape(f, sb, scs, displs, st, rb, rc, rt, root); });
}
template <class C, class D>
void fence_allgatherv(const void* sb, C sc, MPI_Datatype st, const void* rb, const C* rcs,
                      const D* displs, MPI_Datatype rt, int rg, MPI_Comm comm) {
  observe(comm,
          [&](Footprint& f) { allgatherv_shape(f, sb, sc, st, rb, rcs, displs, rt, group(rg)); });
}
template <class C, class D>
void fence_alltoallv(const void* sb, const C* scs, const D* sds, MPI_Datatype st, int sg,
                     const void* rb, const C* rcs, const D* rds, MPI_Datatype rt, int rg,
                     MPI_Comm comm) {
  observe(comm, [&](Footprint& f) {
    alltoallv_shape(f, sb, scs, sds, st, group(sg), rb, rcs, rds, rt, group(rg));
  });
}
template <class C, class D>
void fence_alltoallw(const void* sb, const C* scs, const D* sds, const MPI_Datatype* sts, int sg,
                     const void* rb, const C* rcs, const D* rds, const MPI_Datatype* rts, int rg,
                     MPI_Comm comm) {
  observe(comm, [&](Footprint& f) {
    alltoallw_shape(f, sb, scs, sds, sts, group(sg), rb, rcs, rds, rts, group(rg));
  });
}
template <class C>
void fence_reduce_scatter_block(const void* sb, const void* rb, C rc, MPI_Datatype type,
                                MPI_Comm comm) {
  observe(comm, [&](Footprint& f) { reduce_scatter_block_shape(f, sb, rb, rc, type); });
}
template <class C>
void fence_reduce_scatter(const void* sb, const void* rb, const C* rcs, MPI_Datatype type,
                          MPI_Comm comm) {
  observe(comm, [&](Footprint& f) { reduce_scatter_shape(f, sb, rb, rcs, type); });
}
template <class C, class S>
void fence_pack(const void* in, C incount, MPI_Datatype type, const void* out, S outsize) {
  observe(MPI_COMM_NULL, [&](Footprint& f) { pack_shape(f, in, incount, type, out, outsize); });
}
template <class C, class S>
void fence_unpack(const void* in, S insize, const void* out, C outcount, MPI_Datatype type) {
  observe(MPI_COMM_NULL, [&](Footprint& f) { unpack_shape(f, in, insize, out, outcount, type); });
}

}  // namespace

void add_fences(ovx_core& t) {
  t.fence_buffer = fence_buffer<int>;
  t.fence_buffer_c = fence_buffer<MPI_Count>;
  t.fence_bytes = fence_bytes;
  t.fence_pair = fence_pair<int>;
  t.fence_pair_c = fence_pair<MPI_Count>;
  t.fence_exchange = fence_exchange<int>;
  t.fence_exchange_c = fence_exchange<MPI_Count>;
  t.fence_bcast = fence_bcast<int>;
  t.fence_bcast_c = fence_bcast<MPI_Count>;
  t.fence_reduce = fence_reduce<int>;
  t.fence_reduce_c = fence_reduce<MPI_Count>;
  t.fence_gather = fence_gather<int>;
  t.fence_gather_c = fence_gather<MPI_Count>;
  t.fence_scatter = fence_scatter<int>;
  t.fence_scatter_c = fence_scatter<MPI_Count>;
  t.fence_gatherv = fence_gatherv<int, int>;
  t.fence_gatherv_c = fence_gatherv<MPI_Count, MPI_Aint>;
  t.fence_scatterv = fence_scatterv<int, int>;
  t.fence_scatterv_c = fence_scatterv<MPI_Count, MPI_Aint>;
  t.fence_allgatherv = fence_allgatherv<int, int>;
  t.fence_allgatherv_c = fence_allgatherv<MPI_Count, MPI_Aint>;
  t.fence_alltoallv = fence_alltoallv<int, int>;
  t.fence_alltoallv_c = fence_alltoallv<MPI_Count, MPI_Aint>;
  t.fence_alltoallw = fence_alltoallw<int, int>;
  t.fence_alltoallw_aint = fence_alltoallw<int, MPI_Aint>;
  t.fence_alltoallw_c = fence_alltoallw<MPI_Count, MPI_Aint>;
  t.fence_reduce_scatter_block = fence_reduce_scatter_block<int>;
  t.fence_reduce_scatter_block_c = fence_reduce_scatter_block<MPI_Count>;
  t.fence_reduce_scatter = fence_reduce_scatter<int>;
  t.fence_reduce_scatter_c = fence_reduce_scatter<MPI_Count>;
  t.fence_pack = fence_pack<int, MPI_Aint>;
  t.fence_pack_c = fence_pack<MPI_Count, MPI_Count>;
  t.fence_unpack = fence_unpack<int, MPI_Aint>;
  t.fence_unpack_c = fence_unpack<MPI_Count, MPI_Count>;
}

}  // namespace overlap::intercept
