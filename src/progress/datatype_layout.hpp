// How a datatype lays its bytes in memory, for the layers that move a buffer's bytes
// themselves (overlap-run's deferral, the partitioned layer): whether `count` elements
// are exactly `count * size` bytes from the true lower bound, in the order MPI packs
// them. Anything else (holes, an extent larger than the data, a typemap out of memory
// order such as {int at 4, int at 0}) must go through MPI's own packing.
#pragma once

#include <mpi.h>

namespace overlap::progress {

namespace detail {

// A typemap runs in memory order when it is a named type or a duplicate or contiguous
// run of one. A type without holes can still list its bytes out of order; a message that
// ends inside an element then fills a different prefix of the buffer than its first bytes.
inline bool in_memory_order(MPI_Datatype type, int depth) {
  int integers = 0, addresses = 0, types = 0, combiner = 0;
  if (depth > 16 ||
      PMPI_Type_get_envelope(type, &integers, &addresses, &types, &combiner) != MPI_SUCCESS)
    return false;
  if (combiner == MPI_COMBINER_NAMED) return true;
  if ((combiner != MPI_COMBINER_DUP && combiner != MPI_COMBINER_CONTIGUOUS) || types != 1 ||
      integers > 1 || addresses != 0)
    return false;
  int count = 0;
  MPI_Datatype inner = MPI_DATATYPE_NULL;
  if (PMPI_Type_get_contents(type, integers, 0, 1, &count, nullptr, &inner) != MPI_SUCCESS)
    return false;
  const bool ordered = in_memory_order(inner, depth + 1);
  int inner_integers = 0, inner_addresses = 0, inner_types = 0, inner_combiner = 0;
  PMPI_Type_get_envelope(inner, &inner_integers, &inner_addresses, &inner_types, &inner_combiner);
  if (inner_combiner != MPI_COMBINER_NAMED) PMPI_Type_free(&inner);
  return ordered;
}

}  // namespace detail

// True when the type's bytes run in memory order without holes and one element's extent
// is its size: a named type, or duplicates and contiguous runs of such a type (whatever
// the nesting, up to 16 levels). False when MPI refuses the type. Header-only: the
// interception core, a separate shared object, uses it too.
inline bool bytes_in_memory_order(MPI_Datatype type) {
  int size = 0;
  MPI_Aint lb = 0, extent = 0, true_lb = 0, true_extent = 0;
  if (PMPI_Type_size(type, &size) != MPI_SUCCESS ||
      PMPI_Type_get_extent(type, &lb, &extent) != MPI_SUCCESS ||
      PMPI_Type_get_true_extent(type, &true_lb, &true_extent) != MPI_SUCCESS)
    return false;
  return extent == size && true_extent == size && detail::in_memory_order(type, 0);
}

}  // namespace overlap::progress
