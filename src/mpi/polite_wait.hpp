// Waiting for a request without stealing the core. On an oversubscribed node (more ranks
// than cores, as on a laptop or a 2-core CI machine) a rank that busy-polls while it only
// waits for its turn delays the ranks that are measuring. For the first `yield_s` we test
// and sched_yield(): an answer already on its way costs no sleep, and a partner that
// shares our core still gets to run (a pure spin would hold it off for the whole spin).
// After that we sleep between tests, doubling the sleep up to `max_sleep_ns`: with 16
// ranks on 2 cores, 14 idle ranks polling every 20 us would eat a core between them.
#pragma once

#include <mpi.h>
#include <sched.h>
#include <time.h>

#include <algorithm>

namespace overlap::mpi {

inline void wait_politely(MPI_Request& request, double yield_s = 100e-6,
                          long first_sleep_ns = 20'000, long max_sleep_ns = 1'000'000) {
  int done = 0;
  timespec start{};
  clock_gettime(CLOCK_MONOTONIC, &start);
  long sleep_ns = first_sleep_ns;
  for (;;) {
    MPI_Test(&request, &done, MPI_STATUS_IGNORE);
    if (done) return;
    timespec now{};
    clock_gettime(CLOCK_MONOTONIC, &now);
    const double waited = static_cast<double>(now.tv_sec - start.tv_sec) +
                          1e-9 * static_cast<double>(now.tv_nsec - start.tv_nsec);
    if (waited < yield_s) {
      sched_yield();
    } else {
      const timespec pause{0, sleep_ns};
      nanosleep(&pause, nullptr);
      sleep_ns = std::min(2 * sleep_ns, max_sleep_ns);
    }
  }
}

inline void recv_politely(void* buf, int count, MPI_Datatype type, int source, int tag,
                          MPI_Comm comm) {
  MPI_Request request = MPI_REQUEST_NULL;
  MPI_Irecv(buf, count, type, source, tag, comm, &request);
  wait_politely(request);
}

inline void allreduce_politely(void* inout, int count, MPI_Datatype type, MPI_Op op,
                               MPI_Comm comm) {
  MPI_Request request = MPI_REQUEST_NULL;
  MPI_Iallreduce(MPI_IN_PLACE, inout, count, type, op, comm, &request);
  wait_politely(request);
}

inline void barrier_politely(MPI_Comm comm) {
  MPI_Request request = MPI_REQUEST_NULL;
  MPI_Ibarrier(comm, &request);
  wait_politely(request);
}

}  // namespace overlap::mpi
