// The routers of the program's blocking collectives (the ROUTE entries of
// shim/mpi_functions.def): MPI_Bcast, _Reduce, _Allreduce, _Reduce_scatter_block, _Gather,
// _Scatter, _Allgather and _Alltoall, and their MPI_Count forms (MPICH 4). Each is routed
// by the verdict its nonblocking form gets (collective_verdicts.hpp: the same on every
// rank), then described for collective_deferral.hpp, which defers it or waits for it. A
// call the verdict leaves to MPI runs as written.
#include <mpi.h>

#include "collectives/intercept_abi.h"
#include "intercept/calls/collective_deferral.hpp"
#include "intercept/calls/collective_verdicts.hpp"

namespace overlap::intercept {

namespace {

// A blocking call has no request; the verdicts take any non-null one for it.
MPI_Request* no_request() {
  static MPI_Request unused = MPI_REQUEST_NULL;
  return &unused;
}

RoutedBlocking routed(Call call, MPI_Comm comm, const void* sendbuf, void* recvbuf) {
  RoutedBlocking b;
  b.call = call;
  b.comm = comm;
  b.sendbuf = sendbuf;
  b.recvbuf = recvbuf;
  return b;
}

// ---- the calls, with counts that fit an int (the MPI_Count forms convert) ---------------

int bcast_routed(void* buf, int count, MPI_Datatype type, int root, MPI_Comm comm) {
  RoutedBlocking b = routed(Call::bcast, comm, buf, buf);
  if (is_root(comm, root) == 1) {
    b.send = {buf, count, type};
  } else {
    b.recv = {buf, count, type};
  }
  b.start = [&](const void* send, void* recv, MPI_Request* r) {
    // The root's data may be a copy: the root only reads it.
    void* at = is_root(comm, root) == 1 ? const_cast<void*>(send) : recv;
    return ovx_private_ibcast(at, count, type, root, comm, r);
  };
  return run_routed_blocking(b);
}

int reduce_routed(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op,
                  int root, MPI_Comm comm) {
  RoutedBlocking b = routed(Call::reduce, comm, sendbuf, recvbuf);
  const bool in_place = sendbuf == MPI_IN_PLACE;
  if (!in_place) b.send = {sendbuf, count, type};
  if (is_root(comm, root) == 1) {
    b.recv = {recvbuf, count, type};
    b.recv_is_input = in_place;
  }
  b.start = [&](const void* send, void* recv, MPI_Request* r) {
    return ovx_private_ireduce(send, recv, count, type, op, root, comm, r);
  };
  return run_routed_blocking(b);
}

int allreduce_routed(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op,
                     MPI_Comm comm) {
  RoutedBlocking b = routed(Call::allreduce, comm, sendbuf, recvbuf);
  const bool in_place = sendbuf == MPI_IN_PLACE;
  if (!in_place) b.send = {sendbuf, count, type};
  b.recv = {recvbuf, count, type};
  b.recv_is_input = in_place;
  b.start = [&](const void* send, void* recv, MPI_Request* r) {
    return ovx_private_iallreduce(send, recv, count, type, op, comm, r);
  };
  return run_routed_blocking(b);
}

int reduce_scatter_block_routed(const void* sendbuf, void* recvbuf, int recvcount,
                                MPI_Datatype type, MPI_Op op, MPI_Comm comm) {
  RoutedBlocking b = routed(Call::reduce_scatter_block, comm, sendbuf, recvbuf);
  b.in_place_scatter = sendbuf == MPI_IN_PLACE;
  b.send = {sendbuf, static_cast<MPI_Count>(recvcount) * size_of(comm), type};
  b.recv = {recvbuf, recvcount, type};
  b.start = [&](const void* send, void* recv, MPI_Request* r) {
    return ovx_private_ireduce_scatter_block(send, recv, recvcount, type, op, comm, r);
  };
  return run_routed_blocking(b);
}

int gather_routed(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                  int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm) {
  RoutedBlocking b = routed(Call::gather, comm, sendbuf, recvbuf);
  const bool in_place = sendbuf == MPI_IN_PLACE;  // at the root only
  if (!in_place) b.send = {sendbuf, sendcount, sendtype};
  if (is_root(comm, root) == 1) {
    b.recv = {recvbuf, static_cast<MPI_Count>(recvcount) * size_of(comm), recvtype};
    b.recv_is_input = in_place;  // the root's own block is in place already
  }
  b.start = [&](const void* send, void* recv, MPI_Request* r) {
    return ovx_private_igather(send, sendcount, sendtype, recv, recvcount, recvtype, root, comm, r);
  };
  return run_routed_blocking(b);
}

int scatter_routed(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                   int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm) {
  RoutedBlocking b = routed(Call::scatter, comm, sendbuf, recvbuf);
  if (is_root(comm, root) == 1)
    b.send = {sendbuf, static_cast<MPI_Count>(sendcount) * size_of(comm), sendtype};
  if (recvbuf != MPI_IN_PLACE) b.recv = {recvbuf, recvcount, recvtype};
  b.start = [&](const void* send, void* recv, MPI_Request* r) {
    return ovx_private_iscatter(send, sendcount, sendtype, recv, recvcount, recvtype, root, comm,
                                r);
  };
  return run_routed_blocking(b);
}

// Allgather and alltoall: every rank receives a block from each; in place, its input is
// in the result's buffer.
int all_routed(Call call, const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
               int recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  RoutedBlocking b = routed(call, comm, sendbuf, recvbuf);
  const bool in_place = sendbuf == MPI_IN_PLACE;
  const MPI_Count blocks = call == Call::alltoall ? size_of(comm) : 1;
  if (!in_place) b.send = {sendbuf, static_cast<MPI_Count>(sendcount) * blocks, sendtype};
  b.recv = {recvbuf, static_cast<MPI_Count>(recvcount) * size_of(comm), recvtype};
  b.recv_is_input = in_place;
  b.start = [&](const void* send, void* recv, MPI_Request* r) {
    return call == Call::alltoall ? ovx_private_ialltoall(send, sendcount, sendtype, recv,
                                                          recvcount, recvtype, comm, r)
                                  : ovx_private_iallgather(send, sendcount, sendtype, recv,
                                                           recvcount, recvtype, comm, r);
  };
  return run_routed_blocking(b);
}

// ---- the routers (shim_api.h's table.route) ------------------------------------------------

int bcast(void* buf, int count, MPI_Datatype type, int root, MPI_Comm comm) {
  if (bcast_verdict(Collective::bcast, count, type, root, comm, no_request()).routed)
    return bcast_routed(buf, count, type, root, comm);
  return PMPI_Bcast(buf, count, type, root, comm);
}

int reduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op, int root,
           MPI_Comm comm) {
  if (reduce_verdict(Collective::reduce, count, type, op, root, comm, no_request()).routed)
    return reduce_routed(sendbuf, recvbuf, count, type, op, root, comm);
  return PMPI_Reduce(sendbuf, recvbuf, count, type, op, root, comm);
}

int allreduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op,
              MPI_Comm comm) {
  if (allreduce_verdict(Collective::allreduce, count, type, op, comm, no_request()).routed)
    return allreduce_routed(sendbuf, recvbuf, count, type, op, comm);
  return PMPI_Allreduce(sendbuf, recvbuf, count, type, op, comm);
}

int reduce_scatter_block(const void* sendbuf, void* recvbuf, int recvcount, MPI_Datatype type,
                         MPI_Op op, MPI_Comm comm) {
  if (reduce_scatter_block_verdict(Collective::reduce_scatter_block, recvcount, type, op, comm,
                                   no_request())
          .routed)
    return reduce_scatter_block_routed(sendbuf, recvbuf, recvcount, type, op, comm);
  return PMPI_Reduce_scatter_block(sendbuf, recvbuf, recvcount, type, op, comm);
}

int gather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
           MPI_Datatype recvtype, int root, MPI_Comm comm) {
  if (rooted_verdict(Collective::gather, recvcount, recvtype, sendcount, sendtype, root, comm,
                     no_request())
          .routed)
    return gather_routed(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm);
  return PMPI_Gather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm);
}

int scatter(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
            MPI_Datatype recvtype, int root, MPI_Comm comm) {
  if (rooted_verdict(Collective::scatter, sendcount, sendtype, recvcount, recvtype, root, comm,
                     no_request())
          .routed)
    return scatter_routed(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm);
  return PMPI_Scatter(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm);
}

int allgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
              int recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  if (all_to_all_verdict(Collective::allgather, recvcount, recvtype, comm, no_request()).routed)
    return all_routed(Call::allgather, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
                      comm);
  return PMPI_Allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
}

int alltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
             int recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  if (all_to_all_verdict(Collective::alltoall, recvcount, recvtype, comm, no_request()).routed)
    return all_routed(Call::alltoall, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
                      comm);
  return PMPI_Alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
}

#if MPI_VERSION >= 4
// The MPI_Count forms (MPICH 4), decided as the int forms: a rank may call either for the
// same collective.
int bcast_c(void* buf, MPI_Count count, MPI_Datatype type, int root, MPI_Comm comm) {
  if (bcast_verdict(Collective::bcast, count, type, root, comm, no_request()).routed)
    return bcast_routed(buf, narrowed(count), type, root, comm);
  return PMPI_Bcast_c(buf, count, type, root, comm);
}

int reduce_c(const void* sendbuf, void* recvbuf, MPI_Count count, MPI_Datatype type, MPI_Op op,
             int root, MPI_Comm comm) {
  if (reduce_verdict(Collective::reduce, count, type, op, root, comm, no_request()).routed)
    return reduce_routed(sendbuf, recvbuf, narrowed(count), type, op, root, comm);
  return PMPI_Reduce_c(sendbuf, recvbuf, count, type, op, root, comm);
}

int allreduce_c(const void* sendbuf, void* recvbuf, MPI_Count count, MPI_Datatype type, MPI_Op op,
                MPI_Comm comm) {
  if (allreduce_verdict(Collective::allreduce, count, type, op, comm, no_request()).routed)
    return allreduce_routed(sendbuf, recvbuf, narrowed(count), type, op, comm);
  return PMPI_Allreduce_c(sendbuf, recvbuf, count, type, op, comm);
}

int reduce_scatter_block_c(const void* sendbuf, void* recvbuf, MPI_Count recvcount,
                           MPI_Datatype type, MPI_Op op, MPI_Comm comm) {
  if (reduce_scatter_block_verdict(Collective::reduce_scatter_block, recvcount, type, op, comm,
                                   no_request())
          .routed)
    return reduce_scatter_block_routed(sendbuf, recvbuf, narrowed(recvcount), type, op, comm);
  return PMPI_Reduce_scatter_block_c(sendbuf, recvbuf, recvcount, type, op, comm);
}

int gather_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
             MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm) {
  if (rooted_verdict(Collective::gather, recvcount, recvtype, sendcount, sendtype, root, comm,
                     no_request())
          .routed)
    return gather_routed(sendbuf, narrowed(sendcount), sendtype, recvbuf, narrowed(recvcount),
                         recvtype, root, comm);
  return PMPI_Gather_c(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm);
}

int scatter_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
              MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm) {
  if (rooted_verdict(Collective::scatter, sendcount, sendtype, recvcount, recvtype, root, comm,
                     no_request())
          .routed)
    return scatter_routed(sendbuf, narrowed(sendcount), sendtype, recvbuf, narrowed(recvcount),
                          recvtype, root, comm);
  return PMPI_Scatter_c(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm);
}

int allgather_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  if (all_to_all_verdict(Collective::allgather, recvcount, recvtype, comm, no_request()).routed)
    return all_routed(Call::allgather, sendbuf, narrowed(sendcount), sendtype, recvbuf,
                      narrowed(recvcount), recvtype, comm);
  return PMPI_Allgather_c(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
}

int alltoall_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
               MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  if (all_to_all_verdict(Collective::alltoall, recvcount, recvtype, comm, no_request()).routed)
    return all_routed(Call::alltoall, sendbuf, narrowed(sendcount), sendtype, recvbuf,
                      narrowed(recvcount), recvtype, comm);
  return PMPI_Alltoall_c(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
}
#endif

}  // namespace

void add_blocking_routes(ovx_core& t) {
  t.route.MPI_Bcast = &bcast;
  t.route.MPI_Reduce = &reduce;
  t.route.MPI_Allreduce = &allreduce;
  t.route.MPI_Reduce_scatter_block = &reduce_scatter_block;
  t.route.MPI_Gather = &gather;
  t.route.MPI_Scatter = &scatter;
  t.route.MPI_Allgather = &allgather;
  t.route.MPI_Alltoall = &alltoall;
#if MPI_VERSION >= 4
  t.route.MPI_Bcast_c = &bcast_c;
  t.route.MPI_Reduce_c = &reduce_c;
  t.route.MPI_Allreduce_c = &allreduce_c;
  t.route.MPI_Reduce_scatter_block_c = &reduce_scatter_block_c;
  t.route.MPI_Gather_c = &gather_c;
  t.route.MPI_Scatter_c = &scatter_c;
  t.route.MPI_Allgather_c = &allgather_c;
  t.route.MPI_Alltoall_c = &alltoall_c;
#endif
}

}  // namespace overlap::intercept
