// A program's blocking collective that every rank routes to liboverlap's task graphs
// (collective_routes.cpp decides that from what every rank passes alike) runs here:
// deferred where this rank's buffers allow it, else started and waited for. Deferred, the
// call returns at once: its send side was copied (the program may reuse it at once), its
// result's pages are no-access until liboverlap's collective completed and the result was
// placed there, as a deferred MPI_Recv's (deferral.hpp). The choice is this rank's alone:
// either way its part of the collective is liboverlap's, so the other ranks never see it.
// docs/overlap-run.md ("Blocking collectives") has what is deferred and why MPI allows it.
#pragma once

#include <mpi.h>

#include <functional>

#include "intercept/report/call_sites.hpp"

namespace overlap::intercept {

// One side of the call on this rank: `count` elements of `type` at `buf`; count 0: none.
struct Side {
  const void* buf = nullptr;
  MPI_Count count = 0;
  MPI_Datatype type = MPI_DATATYPE_NULL;
};

struct RoutedBlocking {
  Call call = Call::allreduce;
  MPI_Comm comm = MPI_COMM_NULL;
  // The program's buffer arguments as given (MPI_IN_PLACE included), for the waited form.
  const void* sendbuf = nullptr;
  void* recvbuf = nullptr;
  Side send;  // what this rank sends: copied when deferred (none in place)
  Side recv;  // the result this rank gets: through a landing area when deferred
  // In place: the result's buffer also holds this rank's input (the landing area starts
  // as its copy).
  bool recv_is_input = false;
  // MPI_Reduce_scatter_block in place: its input (every block) outsizes its result.
  bool in_place_scatter = false;
  // Starts liboverlap's collective with the buffers to use in place of sendbuf and recvbuf.
  std::function<int(const void* send, void* recv, MPI_Request* request)> start;
};

// Serves the call: MPI_SUCCESS once deferred or complete, else MPI's error code.
int run_routed_blocking(const RoutedBlocking& b);

}  // namespace overlap::intercept
