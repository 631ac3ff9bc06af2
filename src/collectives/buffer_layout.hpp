// What the C API accepts as a buffer description: (count, datatype) pairs whose data
// are contiguous bytes. Algorithms move bytes, so a datatype with holes or a shifted
// lower bound is refused with a message rather than sent wrongly.
#pragma once

#include <mpi.h>

#include <cstddef>
#include <string>

#include "progress/mpi_errors.hpp"

namespace overlap::collectives {

// The MPI name of `type` ("MPI_INT", or the name set with MPI_Type_set_name, or
// "a derived datatype").
std::string type_name(MPI_Datatype type);

// Bytes of `count` elements of `type`, or an error naming `what` ("count", "sendtype").
struct BufferBytes {
  std::size_t bytes = 0;
  std::string error;
  progress::ErrorKind kind = progress::ErrorKind::argument;  // MPI's class for the error
};
BufferBytes contiguous_bytes(int count, MPI_Datatype type, const char* count_name,
                             const char* type_name_arg);

}  // namespace overlap::collectives
