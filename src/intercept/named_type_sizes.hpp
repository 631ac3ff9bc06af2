// The sizes of MPI's predefined datatypes, asked once after MPI_Init. Every intercepted
// send or receive needs its message's size; asking MPI (MPI_Type_size) costs a call into
// MPI's code, which after a computation phase is out of the caches and was the largest
// part of what a small message paid for the layer. A predefined type can never be freed
// or change, so its size may be kept; any other type is asked each time (a freed derived
// type's handle can come back with another size).
#pragma once

#include <mpi.h>

#include <array>
#include <cstddef>
#include <optional>

namespace overlap::intercept {

class NamedTypeSizes {
 public:
  // Asks MPI for each predefined C type's size (MPI initialised; before other threads
  // read).
  void learn();
  // The size of a predefined type learnt, else nothing (ask MPI).
  std::optional<int> size_of(MPI_Datatype type) const;

 private:
  struct Entry {
    MPI_Datatype type = MPI_DATATYPE_NULL;
    int size = 0;
  };
  static constexpr std::size_t kSlots = 128;  // open addressing, at most half full
  void add(MPI_Datatype type, int size);
  static std::size_t slot_of(MPI_Datatype type);
  std::array<Entry, kSlots> slots_{};
};

}  // namespace overlap::intercept
