// The C layout of MPI's value-index pair types: MPI_DOUBLE_INT is struct {double; int},
// 16 bytes of which 12 are data; MPI_2REAL is two floats (MPI 4.0 sec. 6.9.4).
#pragma once

namespace overlap::collectives {

template <class V, class I>
struct Pair {
  V value;
  I index;
};

}  // namespace overlap::collectives
