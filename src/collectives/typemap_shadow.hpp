// MPI reads and writes a datatype's typemap only; liboverlap's algorithms move bytes. The
// predefined pair types MPI_SHORT_INT, MPI_DOUBLE_INT, MPI_LONG_INT and
// MPI_LONG_DOUBLE_INT have padding inside or after each element (MPI_DOUBLE_INT: 12 data
// bytes in 16), which MPI leaves alone and which need not even be memory of the buffer
// after the last element. For these types a collective runs on a shadow copy of the
// application's buffer: a first task copies the data fields in (inputs), a last task
// copies them out (outputs), so the application's padding is never read or written.
// A derived datatype whose data are not contiguous bytes in memory order (a vector, a
// subarray, a struct with holes) runs, in the data movement collectives, on a packed copy:
// MPI_Pack at the call for inputs (MPI may read a send buffer any time until completion,
// so reading it at once is allowed), MPI_Unpack by the thread that completes the graph for
// outputs, before the request completes (a copy of the datatype is kept, since the
// program may free its own). Other types run on the application's buffer directly.
#pragma once

#include <mpi.h>

#include <cstddef>
#include <memory>

#include "progress/task_graph.hpp"

namespace overlap::collectives {

// Copies the data fields of `count` elements from `in` to `out` (as a ReduceFn: `out` is
// the inout argument), leaving the padding of `out` alone; nullptr when `type` has no
// padding (every byte of its extent is data).
progress::ReduceFn typemap_copy(MPI_Datatype type);

// One buffer of a collective, as the algorithm should see it. Build it before the
// algorithm's tasks, hand buffer() to the builder, call finish() after it.
class TypemapShadow {
 public:
  enum class Use { read, write, read_write };
  // `count` elements of `type` at `user` (nullptr: no buffer, nothing is shadowed), in a
  // reduction: every rank passes the same datatype, moved as count x extent bytes.
  TypemapShadow(progress::TaskGraph& g, const void* user, std::size_t count, MPI_Datatype type,
                Use use);
  // A buffer of a data movement collective, moved as count x MPI_Type_size bytes (ranks
  // may describe the same data with different datatypes, MPI's type matching rule):
  // packed unless its data are contiguous bytes without padding. `present`: this rank has
  // the buffer (not MPI_IN_PLACE, significant at this rank); `user` may then be
  // MPI_BOTTOM, an address like any other (always packed: the algorithms read a null
  // buffer as "in place").
  struct Moved {
    bool present;
  };
  TypemapShadow(progress::TaskGraph& g, const void* user, std::size_t count, MPI_Datatype type,
                Use use, Moved moved);
  TypemapShadow(const TypemapShadow&) = delete;
  TypemapShadow& operator=(const TypemapShadow&) = delete;

  // What the algorithm reads or writes: the shadow, or `user` when there is none.
  void* buffer() const { return buffer_; }
  // Orders the copy in before every task built since the constructor and, for outputs,
  // adds the copy out of the first `written` elements (default: all) after every task.
  void finish();
  void finish(std::size_t written);

 private:
  progress::TaskGraph& g_;
  void* user_;
  void* buffer_;
  std::size_t count_;
  Use use_;
  void pack_in(MPI_Datatype type);
  progress::ReduceOp copy_{};  // fn == nullptr: no field-by-field shadow
  // A packed shadow: what is unpacked into (elements_ of packed_type_ at base_; see
  // pack_in), for outputs only.
  MPI_Datatype packed_type_ = MPI_DATATYPE_NULL;
  void* base_ = nullptr;
  int elements_ = 0;
  std::size_t packed_bytes_ = 0;
  std::shared_ptr<std::byte[]> packed_;
  progress::TaskId copy_in_ = 0;
  bool has_copy_in_ = false;
};

}  // namespace overlap::collectives
