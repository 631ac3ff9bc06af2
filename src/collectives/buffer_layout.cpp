#include "collectives/buffer_layout.hpp"

#include <climits>

namespace overlap::collectives {

std::string type_name(MPI_Datatype type) {
  if (type == MPI_DATATYPE_NULL) return "MPI_DATATYPE_NULL";
  char name[MPI_MAX_OBJECT_NAME] = {};
  int len = 0;
  PMPI_Type_get_name(type, name, &len);
  return len > 0 ? std::string(name, static_cast<std::size_t>(len)) : "a derived datatype";
}

BufferBytes contiguous_bytes(int count, MPI_Datatype type, const char* count_name,
                             const char* type_arg) {
  BufferBytes r;
  if (count < 0) {
    r.error = std::string(count_name) + "=" + std::to_string(count) + " is negative";
    return r;
  }
  if (type == MPI_DATATYPE_NULL) {
    r.error = std::string(type_arg) + " is MPI_DATATYPE_NULL";
    return r;
  }
  int size = 0;
  MPI_Aint lb = 0, extent = 0, true_lb = 0, true_extent = 0;
  PMPI_Type_size(type, &size);
  PMPI_Type_get_extent(type, &lb, &extent);
  PMPI_Type_get_true_extent(type, &true_lb, &true_extent);
  // Predefined pair types (MPI_DOUBLE_INT...) have padding between elements; they are
  // still one block of count x extent bytes, and the padding travels along harmlessly.
  int ints = 0, addresses = 0, types = 0, combiner = 0;
  PMPI_Type_get_envelope(type, &ints, &addresses, &types, &combiner);
  if (combiner == MPI_COMBINER_NAMED && size > 0 && lb == 0 && extent >= size)
    size = static_cast<int>(extent);
  if (size <= 0 || lb != 0 || true_lb != 0 || extent != size || true_extent > size) {
    r.error = std::string(type_arg) + " is " + type_name(type) +
              ", which is not contiguous (allowed: datatypes whose data are contiguous bytes "
              "with lower bound 0, such as the predefined types)";
    return r;
  }
  const auto bytes = static_cast<unsigned long long>(count) * static_cast<unsigned long long>(size);
  if (bytes > static_cast<unsigned long long>(INT_MAX)) {
    r.error = std::string(count_name) + "=" + std::to_string(count) + " of " + type_name(type) +
              " is " + std::to_string(bytes) + " bytes (allowed: at most " +
              std::to_string(INT_MAX) + " bytes per buffer)";
    return r;
  }
  r.bytes = static_cast<std::size_t>(bytes);
  return r;
}

}  // namespace overlap::collectives
