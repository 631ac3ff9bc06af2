#include "collectives/buffer_layout.hpp"

#include <algorithm>
#include <array>
#include <atomic>
#include <climits>
#include <cstdint>
#include <cstring>
#include <mutex>
#include <vector>

namespace overlap::collectives {
namespace {

// Whether MPI's packing of one element of a derived `type` equals its `bytes` bytes in
// memory order: MPI sends a typemap in typemap order, so a permuted (indexed {4, 0}) or
// overlapping typemap is not "contiguous bytes" even with lb 0 and extent == size.
// Each byte of the element is tagged with its offset (one pass per byte of the offset).
bool packs_in_memory_order(MPI_Datatype type, std::size_t bytes) {
  std::vector<unsigned char> memory(bytes), packed(bytes);
  for (unsigned shift = 0; shift < 8 * sizeof(std::size_t) && (bytes - 1) >> shift != 0;
       shift += 8) {
    for (std::size_t i = 0; i < bytes; ++i) memory[i] = static_cast<unsigned char>(i >> shift);
    int position = 0;
    if (PMPI_Pack(memory.data(), 1, type, packed.data(), static_cast<int>(bytes), &position,
                  MPI_COMM_SELF) != MPI_SUCCESS ||
        static_cast<std::size_t>(position) != bytes ||
        std::memcmp(memory.data(), packed.data(), bytes) != 0)
      return false;
  }
  return true;
}

// The answer for a derived datatype, decided once and cached on it as an attribute (which
// goes when the datatype is freed, so a reused handle is asked again). Attribute values:
// 1 in memory order, 2 not.
bool in_memory_order(MPI_Datatype type, std::size_t bytes) {
  static std::mutex cache_mu;
  static int keyval = MPI_KEYVAL_INVALID;
  std::lock_guard lock(cache_mu);
  if (keyval == MPI_KEYVAL_INVALID)
    PMPI_Type_create_keyval(MPI_TYPE_NULL_COPY_FN, MPI_TYPE_NULL_DELETE_FN, &keyval, nullptr);
  void* value = nullptr;
  int found = 0;
  PMPI_Type_get_attr(type, keyval, &value, &found);
  if (found) return reinterpret_cast<std::intptr_t>(value) == 1;
  const bool ok = bytes == 0 || packs_in_memory_order(type, bytes);
  PMPI_Type_set_attr(type, keyval, reinterpret_cast<void*>(std::intptr_t{ok ? 1 : 2}));
  return ok;
}

}  // namespace

std::string type_name(MPI_Datatype type) {
  if (type == MPI_DATATYPE_NULL) return "MPI_DATATYPE_NULL";
  char name[MPI_MAX_OBJECT_NAME] = {};
  int len = 0;
  PMPI_Type_get_name(type, name, &len);
  return len > 0 ? std::string(name, static_cast<std::size_t>(len)) : "a derived datatype";
}

namespace {

// What contiguous_layout found for predefined datatypes: they never change and their
// handles are never reused, and asking MPI takes four calls (each taking MPICH's lock),
// a visible part of a small collective's fixed cost (docs/liboverlap.md, "The fixed cost
// of a collective"). Entries are written once, under the lock, before the count that
// publishes them; readers take no lock.
class NamedLayouts {
 public:
  bool find(MPI_Datatype type, int& size, bool& contiguous) const {
    const int n = count_.load(std::memory_order_acquire);
    for (int i = 0; i < n; ++i) {
      const Entry& e = entries_[static_cast<std::size_t>(i)];
      if (e.type != type) continue;
      size = e.size;
      contiguous = e.contiguous;
      return true;
    }
    return false;
  }
  void add(MPI_Datatype type, int size, bool contiguous) {
    std::lock_guard lock(mu_);
    const int n = count_.load(std::memory_order_relaxed);
    int known_size = 0;
    bool known = false;
    if (n == kMax || find(type, known_size, known)) return;
    entries_[static_cast<std::size_t>(n)] = Entry{type, size, contiguous};
    count_.store(n + 1, std::memory_order_release);
  }

 private:
  static constexpr int kMax = 64;
  struct Entry {
    MPI_Datatype type;
    int size;
    bool contiguous;
  };
  std::array<Entry, kMax> entries_{};
  std::atomic<int> count_{0};
  std::mutex mu_;
};

NamedLayouts& named_layouts() {
  static NamedLayouts* layouts = new NamedLayouts;  // used until the process ends
  return *layouts;
}

// Whether `count` elements of a valid, non-null `type` of `size` bytes, `extent` and true
// extent are contiguous bytes in memory order (named pair types count their padding).
bool contiguous_layout(MPI_Datatype type, int& size) {
  bool known = false;
  if (named_layouts().find(type, size, known)) return known;
  MPI_Aint lb = 0, extent = 0, true_lb = 0, true_extent = 0;
  PMPI_Type_size(type, &size);
  PMPI_Type_get_extent(type, &lb, &extent);
  PMPI_Type_get_true_extent(type, &true_lb, &true_extent);
  // Predefined pair types (MPI_DOUBLE_INT...) have padding inside or after each element:
  // algorithms move them as count x extent bytes, and the collectives run them on a shadow
  // copy so the application's padding is never touched (typemap_shadow.hpp).
  int ints = 0, addresses = 0, types = 0, combiner = 0;
  PMPI_Type_get_envelope(type, &ints, &addresses, &types, &combiner);
  if (combiner == MPI_COMBINER_NAMED && size > 0 && lb == 0 && extent >= size)
    size = static_cast<int>(extent);
  const bool contiguous =
      !(size <= 0 || lb != 0 || true_lb != 0 || extent != size || true_extent > size ||
        (combiner != MPI_COMBINER_NAMED && !in_memory_order(type, static_cast<std::size_t>(size))));
  if (combiner == MPI_COMBINER_NAMED) named_layouts().add(type, size, contiguous);
  return contiguous;
}

}  // namespace

bool needs_packing(MPI_Datatype type) {
  if (type == MPI_DATATYPE_NULL) return false;
  int size = 0;
  return !contiguous_layout(type, size) && size > 0;
}

BufferBytes buffer_bytes(int count, MPI_Datatype type, const char* count_name, const char* type_arg,
                         Layout allowed) {
  BufferBytes r;
  if (count < 0) {
    r.error = std::string(count_name) + "=" + std::to_string(count) + " is negative";
    r.kind = progress::ErrorKind::count;
    return r;
  }
  if (type == MPI_DATATYPE_NULL) {
    r.error = std::string(type_arg) + " is MPI_DATATYPE_NULL";
    r.kind = progress::ErrorKind::type;
    return r;
  }
  int size = 0;
  if (allowed == Layout::any) {
    // Moved as MPI packs it (typemap_shadow.hpp): MPI_Type_size bytes per element (the
    // signature's, equal on every rank), none for a datatype without data.
    PMPI_Type_size(type, &size);
    size = std::max(size, 0);
  } else if (!contiguous_layout(type, size)) {
    r.error = std::string(type_arg) + " is " + type_name(type) +
              ", which is not contiguous (allowed: datatypes whose data are contiguous bytes "
              "with lower bound 0 and whose typemap lists them in memory order without "
              "overlap, such as the predefined types)";
    r.kind = progress::ErrorKind::type;
    return r;
  }
  const auto bytes = static_cast<unsigned long long>(count) * static_cast<unsigned long long>(size);
  if (bytes > static_cast<unsigned long long>(INT_MAX)) {
    r.error = std::string(count_name) + "=" + std::to_string(count) + " of " + type_name(type) +
              " is " + std::to_string(bytes) + " bytes (allowed: at most " +
              std::to_string(INT_MAX) + " bytes per buffer)";
    r.kind = progress::ErrorKind::count;
    return r;
  }
  r.bytes = static_cast<std::size_t>(bytes);
  return r;
}

BufferBytes contiguous_bytes(int count, MPI_Datatype type, const char* count_name,
                             const char* type_arg) {
  return buffer_bytes(count, type, count_name, type_arg, Layout::contiguous);
}

}  // namespace overlap::collectives
