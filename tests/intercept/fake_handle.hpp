// A request handle as MPI would give one (an int with MPICH, a pointer with Open MPI), for
// the pure tests that never call MPI.
#pragma once

#include <mpi.h>

#include <algorithm>
#include <cstdint>
#include <cstring>

namespace overlap::intercept {

inline MPI_Request handle(std::uintptr_t v) {
  MPI_Request r;
  std::memset(&r, 0, sizeof r);
  std::memcpy(&r, &v, std::min(sizeof r, sizeof v));
  return r;
}

}  // namespace overlap::intercept
