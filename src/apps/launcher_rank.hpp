// The rank a launcher gave this process, read from its environment before MPI_Init, so
// that usage errors (found before any MPI traffic) are printed once rather than P times.
#pragma once

#include <cstdlib>

namespace overlap::apps {

// -1 when no known launcher variable is set (a plain, non-MPI start).
inline int rank_from_environment() {
  for (const char* var : {"OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK", "SLURM_PROCID"}) {
    if (const char* value = std::getenv(var)) return std::atoi(value);
  }
  return -1;
}

inline bool is_first_rank() { return rank_from_environment() <= 0; }

}  // namespace overlap::apps
