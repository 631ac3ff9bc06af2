#include "intercept/calls/named_type_sizes.hpp"

namespace overlap::intercept {

void learn_named_type_sizes(ovx_straight& table) {
  // The C types of MPI 3.1 (sec. 3.2.2, 4.1.4 and 5.9.4) both MPIs define; a type MPI
  // does not provide here is MPI_DATATYPE_NULL and skipped.
  const MPI_Datatype named[] = {
      MPI_CHAR,
      MPI_SHORT,
      MPI_INT,
      MPI_LONG,
      MPI_LONG_LONG_INT,
      MPI_LONG_LONG,
      MPI_SIGNED_CHAR,
      MPI_UNSIGNED_CHAR,
      MPI_UNSIGNED_SHORT,
      MPI_UNSIGNED,
      MPI_UNSIGNED_LONG,
      MPI_UNSIGNED_LONG_LONG,
      MPI_FLOAT,
      MPI_DOUBLE,
      MPI_LONG_DOUBLE,
      MPI_WCHAR,
      MPI_C_BOOL,
      MPI_INT8_T,
      MPI_INT16_T,
      MPI_INT32_T,
      MPI_INT64_T,
      MPI_UINT8_T,
      MPI_UINT16_T,
      MPI_UINT32_T,
      MPI_UINT64_T,
      MPI_AINT,
      MPI_COUNT,
      MPI_OFFSET,
      MPI_C_COMPLEX,
      MPI_C_FLOAT_COMPLEX,
      MPI_C_DOUBLE_COMPLEX,
      MPI_C_LONG_DOUBLE_COMPLEX,
      MPI_BYTE,
      MPI_PACKED,
      MPI_FLOAT_INT,
      MPI_DOUBLE_INT,
      MPI_LONG_INT,
      MPI_2INT,
      MPI_SHORT_INT,
      MPI_LONG_DOUBLE_INT,
  };
  for (MPI_Datatype type : named) {
    if (type == MPI_DATATYPE_NULL) continue;
    int size = 0;
    MPI_Aint lb = 0, extent = 0, true_lb = 0, true_extent = 0;
    if (PMPI_Type_size(type, &size) != MPI_SUCCESS || size < 0) continue;
    // Pair types (MPI_DOUBLE_INT, MPI_SHORT_INT) have padding: their extent exceeds their size.
    const bool dense = PMPI_Type_get_extent(type, &lb, &extent) == MPI_SUCCESS &&
                       PMPI_Type_get_true_extent(type, &true_lb, &true_extent) == MPI_SUCCESS &&
                       lb == 0 && true_lb == 0 && extent == size && true_extent == size;
    ovx_type_size_add(&table, type, size, dense ? 1 : 0);
  }
}

}  // namespace overlap::intercept
