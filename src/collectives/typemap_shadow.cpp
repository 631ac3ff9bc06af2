#include "collectives/typemap_shadow.hpp"

#include <algorithm>
#include <cstring>
#include <memory>

#include "collectives/buffer_layout.hpp"
#include "collectives/pair.hpp"

namespace overlap::collectives {
namespace {

// Field by field, so the padding of `out` is neither written nor the padding of `in`
// read (memcpy: the buffers need not be aligned for P).
template <class P>
void copy_fields(const void* in, void* out, std::size_t count) {
  const auto* src = static_cast<const unsigned char*>(in);
  auto* dst = static_cast<unsigned char*>(out);
  constexpr std::size_t index_at = offsetof(P, index);
  for (std::size_t i = 0; i < count; ++i, src += sizeof(P), dst += sizeof(P)) {
    std::memcpy(dst, src, sizeof(P::value));
    std::memcpy(dst + index_at, src + index_at, sizeof(P::index));
  }
}

// Both MPIs describe these types as the C structs (MPI 4.0 sec. 6.9.4); the sizes are
// checked against MPI's at run time anyway.
template <class P>
progress::ReduceFn if_padded(MPI_Datatype type) {
  int size = 0;
  MPI_Aint lb = 0, extent = 0;
  PMPI_Type_size(type, &size);
  PMPI_Type_get_extent(type, &lb, &extent);
  if (static_cast<std::size_t>(extent) != sizeof(P) || size == extent) return nullptr;
  return &copy_fields<P>;
}

}  // namespace

progress::ReduceFn typemap_copy(MPI_Datatype type) {
  if (type == MPI_SHORT_INT) return if_padded<Pair<short, int>>(type);
  if (type == MPI_DOUBLE_INT) return if_padded<Pair<double, int>>(type);
  if (type == MPI_LONG_INT) return if_padded<Pair<long, int>>(type);
  if (type == MPI_LONG_DOUBLE_INT) return if_padded<Pair<long double, int>>(type);
  return nullptr;
}

TypemapShadow::TypemapShadow(progress::TaskGraph& g, const void* user, std::size_t count,
                             MPI_Datatype type, Use use)
    : g_(g),
      user_(const_cast<void*>(user)),  // written only for outputs, which are not const
      buffer_(user_),
      count_(count),
      use_(use) {
  if (user == nullptr || count == 0) return;
  progress::ReduceFn fn = typemap_copy(type);
  if (fn == nullptr) return;
  MPI_Aint lb = 0, extent = 0;
  PMPI_Type_get_extent(type, &lb, &extent);
  copy_ = {fn, static_cast<std::size_t>(extent)};
  // Owned by the graph's completion: freed once nothing the graph posted can still write
  // to it (an abandoned graph completes only then; one left at MPI_Finalize keeps it).
  std::shared_ptr<std::byte[]> shadow(new std::byte[count * copy_.elem_size]);
  buffer_ = shadow.get();
  g_.on_complete([shadow]() mutable { shadow.reset(); });
  if (use_ != Use::write) {
    copy_in_ = g_.reduce(user_, buffer_, count_, copy_);
    has_copy_in_ = true;
  }
}

// Callers check the sizes first: count x size is at most INT_MAX bytes (buffer_bytes).
// What is packed and unpacked: `count_` elements of (a copy of) `type` at `user_`; at
// MPI_BOTTOM, one element of a struct of them displaced by minus a non-null base address,
// from that base (MPICH 4.0 refuses a null buffer in MPI_Pack, MPI_BOTTOM included).
void TypemapShadow::pack_in(MPI_Datatype type) {
  int size = 0;
  PMPI_Type_size(type, &size);
  packed_bytes_ = count_ * static_cast<std::size_t>(size);
  packed_.reset(new std::byte[std::max<std::size_t>(packed_bytes_, 1)]);
  buffer_ = packed_.get();
  if (user_ == MPI_BOTTOM) {
    static char anchor;  // any address but null (and not the packed buffer: no aliasing)
    base_ = &anchor;
    int blocks = static_cast<int>(count_);
    MPI_Aint displacement = -reinterpret_cast<MPI_Aint>(base_);
    PMPI_Type_create_struct(1, &blocks, &displacement, &type, &packed_type_);
    PMPI_Type_commit(&packed_type_);
    elements_ = 1;
  } else {
    base_ = user_;
    PMPI_Type_dup(type, &packed_type_);
    elements_ = static_cast<int>(count_);
  }
  if (use_ != Use::write && packed_bytes_ > 0) {
    int position = 0;
    PMPI_Pack(base_, elements_, packed_type_, packed_.get(), static_cast<int>(packed_bytes_),
              &position, MPI_COMM_SELF);
  }
  if (use_ == Use::read) PMPI_Type_free(&packed_type_);
}

TypemapShadow::TypemapShadow(progress::TaskGraph& g, const void* user, std::size_t count,
                             MPI_Datatype type, Use use, Moved moved)
    : g_(g),
      user_(moved.present ? const_cast<void*>(user) : nullptr),
      buffer_(user_),
      count_(count),
      use_(use) {
  if (!moved.present) return;
  if (user == MPI_BOTTOM || (count > 0 && (needs_packing(type) || typemap_copy(type) != nullptr)))
    pack_in(type);
}

void TypemapShadow::finish() { finish(count_); }

void TypemapShadow::finish(std::size_t written) {
  if (packed_) {
    // Owned by the graph's completion, which unpacks an output unless the graph was
    // abandoned (nothing it posted can write the copy any more by then).
    // (Data movement outputs are unpacked whole: finish(written) is for reductions.)
    g_.on_complete([g = &g_, packed = packed_, type = packed_type_, base = base_,
                    elements = elements_, bytes = packed_bytes_]() mutable {
      if (type == MPI_DATATYPE_NULL) return packed.reset();
      if (!g->abandoned() && bytes > 0) {
        int position = 0;
        PMPI_Unpack(packed.get(), static_cast<int>(bytes), &position, base, elements, type,
                    MPI_COMM_SELF);
      }
      PMPI_Type_free(&type);
      packed.reset();
    });
    packed_type_ = MPI_DATATYPE_NULL;  // the callback owns it now
    packed_.reset();
    return;
  }
  if (copy_.fn == nullptr) return;
  const auto built = static_cast<progress::TaskId>(g_.size());
  if (has_copy_in_)
    for (progress::TaskId t = copy_in_ + 1; t < built; ++t) g_.depend(t, copy_in_);
  if (use_ == Use::read || written == 0) return;
  const progress::TaskId out = g_.reduce(buffer_, user_, written, copy_);
  for (progress::TaskId t = 0; t < out; ++t) g_.depend(out, t);
}

}  // namespace overlap::collectives
