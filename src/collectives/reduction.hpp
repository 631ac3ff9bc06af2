// Reduction kernels for every predefined MPI operation on every predefined basic
// datatype it is defined for (MPI 4.0, sec. 6.9.2). Anything else is refused with a
// message naming the operation and the datatype, never computed wrongly.
#pragma once

#include <mpi.h>

#include <string>

#include "collectives/algorithms.hpp"

namespace overlap::collectives {

struct ReductionLookup {
  ReduceKernel kernel;  // fn == nullptr when refused
  std::string error;    // why, when refused
};

ReductionLookup find_reduction(MPI_Op op, MPI_Datatype type);

}  // namespace overlap::collectives
