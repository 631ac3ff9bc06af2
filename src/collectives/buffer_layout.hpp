// What the C API accepts as a buffer description. Algorithms move bytes: reductions take
// (count, datatype) pairs whose data are contiguous bytes, and refuse a datatype with
// holes or a shifted lower bound with a message rather than reduce it wrongly; the data
// movement collectives take any datatype, moving one that is not contiguous as MPI packs
// it (typemap_shadow.hpp).
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
// Which buffers a call takes: contiguous bytes only, or any datatype (packed).
enum class Layout { contiguous, any };
BufferBytes buffer_bytes(int count, MPI_Datatype type, const char* count_name,
                         const char* type_name_arg, Layout allowed);
BufferBytes contiguous_bytes(int count, MPI_Datatype type, const char* count_name,
                             const char* type_name_arg);

// Whether a data movement collective runs on a packed copy of a buffer of `type`: its data
// are not contiguous bytes in memory order (and there are some).
bool needs_packing(MPI_Datatype type);

}  // namespace overlap::collectives
