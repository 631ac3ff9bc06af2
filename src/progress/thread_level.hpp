// The name of an MPI thread level, as MPI's constants spell it. Inline: liboverlap.so and
// the interception core (a separate shared object, which sees only liboverlap's C and
// private ABIs) share this one definition.
#pragma once

#include <mpi.h>

namespace overlap::progress {

inline const char* thread_level_name(int level) {
  switch (level) {
    case MPI_THREAD_SINGLE:
      return "MPI_THREAD_SINGLE";
    case MPI_THREAD_FUNNELED:
      return "MPI_THREAD_FUNNELED";
    case MPI_THREAD_SERIALIZED:
      return "MPI_THREAD_SERIALIZED";
    default:
      return "MPI_THREAD_MULTIPLE";
  }
}

}  // namespace overlap::progress
