// ovx-pair-types: every liboverlap collective on the predefined pair types with padding
// (MPI_SHORT_INT, MPI_DOUBLE_INT, MPI_LONG_INT, MPI_LONG_DOUBLE_INT), against MPI's own.
// MPI reads and writes a datatype's typemap only, so
//  - the data fields of every output equal MPI's (compared by value, field by field);
//  - no padding byte of an output changes, inside the elements or after the last one's
//    data (each rank fills its buffers with its own guard byte first, so padding that
//    travelled from another rank shows too);
//  - input buffers end with the last element's data (no trailing padding in memory): a
//    read past it is caught by ASan, and by the guard of the output otherwise.
// Every in-place form (at the root for the rooted ones); 3 and 20000 elements per block
// (latency and bandwidth algorithms); P = 2..4 ranks covers the non-power-of-two ones.
//
//   mpiexec -n P ovx-pair-types        prints "PASS pair-types" on rank 0
#include <overlap/overlap.h>

#include <cstddef>
#include <cstdio>
#include <cstring>
#include <functional>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "verdict.hpp"
#include "watchdog.hpp"

namespace {

using ovx_test::expect;
int g_rank = 0;
int g_size = 1;
// Elements per block: a few (latency algorithms), then enough for the bandwidth ones
// (Rabenseifner, rings, scatter-allgather), set by main.
int g_count = 3;

template <class V>
struct PairOf {
  V value;
  int index;
};

// One pair type's C layout and how to write and compare its fields.
struct Layout {
  MPI_Datatype type;
  const char* name;
  std::size_t extent;    // sizeof the C struct
  std::size_t value;     // bytes of the value field, at offset 0
  std::size_t index_at;  // offset of the int index
  void (*set)(unsigned char* elem, int value, int index);
  bool (*same)(const unsigned char* a, const unsigned char* b);
};

template <class V>
Layout layout(MPI_Datatype type, const char* name) {
  Layout l{type, name, sizeof(PairOf<V>), sizeof(V), offsetof(PairOf<V>, index), nullptr, nullptr};
  l.set = [](unsigned char* elem, int value, int index) {
    const V v = static_cast<V>(value);
    std::memcpy(elem, &v, sizeof v);
    // x87's long double stores 10 of its 16 bytes: the rest is whatever the stack held
    // (a memset before the assignment is a dead store to the compiler), and two fills of
    // one buffer must compare equal byte for byte.
    if constexpr (std::is_same_v<V, long double> && std::numeric_limits<V>::digits == 64)
      std::memset(elem + 10, 0, sizeof v - 10);
    std::memcpy(elem + offsetof(PairOf<V>, index), &index, sizeof index);
  };
  l.same = [](const unsigned char* a, const unsigned char* b) {
    V va, vb;
    int ia = 0, ib = 0;
    std::memcpy(&va, a, sizeof va);
    std::memcpy(&vb, b, sizeof vb);
    std::memcpy(&ia, a + offsetof(PairOf<V>, index), sizeof ia);
    std::memcpy(&ib, b + offsetof(PairOf<V>, index), sizeof ib);
    return va == vb && ia == ib;
  };
  return l;
}

// `n` elements; with `guard_after`, 16 guard bytes follow the last element's data.
struct Buffer {
  std::vector<unsigned char> bytes;
  std::size_t n = 0;
  unsigned char* data() { return bytes.data(); }
};

std::size_t data_end(const Layout& l, std::size_t n) {
  return n == 0 ? 0 : (n - 1) * l.extent + l.index_at + sizeof(int);
}

unsigned char guard_byte() { return static_cast<unsigned char>(0x50 + g_rank); }

// Values with ties (MAXLOC/MINLOC then pick the smaller index), different on every rank.
void set_fields(const Layout& l, Buffer& b, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i)
    l.set(b.data() + i * l.extent, static_cast<int>((g_rank * 7 + i * 3) % 5),
          g_rank * 1000 + static_cast<int>(i));
}

Buffer filled(const Layout& l, std::size_t n, bool guard_after) {
  Buffer b;
  b.n = n;
  b.bytes.assign(data_end(l, n) + (guard_after ? 16 : 0), guard_byte());
  set_fields(l, b, n);
  return b;
}

// An output: guard bytes everywhere (data fields too: MPI overwrites them).
Buffer empty(const Layout& l, std::size_t n) {
  Buffer b;
  b.n = n;
  b.bytes.assign(data_end(l, n) + 16, guard_byte());
  return b;
}

bool is_data(const Layout& l, std::size_t offset, std::size_t n) {
  if (offset >= data_end(l, n)) return false;
  const std::size_t in = offset % l.extent;
  return in < l.value || (in >= l.index_at && in < l.index_at + sizeof(int));
}

// `got` (liboverlap's) against `want` (MPI's): fields of the first `n` elements equal
// (the rest of an in-place reduce_scatter_block's buffer is undefined afterwards), every
// padding and guard byte of `got` still the guard.
void compare(const Layout& l, const std::string& what, Buffer& got, Buffer& want, std::size_t n) {
  int wrong = 0, touched = 0;
  for (std::size_t i = 0; i < n; ++i)
    wrong += !l.same(got.data() + i * l.extent, want.data() + i * l.extent);
  for (std::size_t o = 0; o < got.bytes.size(); ++o)
    touched += !is_data(l, o, got.n) && got.bytes[o] != guard_byte();
  expect(wrong == 0, std::string(l.name) + " " + what + ": " + std::to_string(wrong) + " of " +
                         std::to_string(n) + " elements differ from MPI's");
  expect(touched == 0, std::string(l.name) + " " + what + ": " + std::to_string(touched) +
                           " padding or guard bytes written");
}

void check_rc(int rc, const Layout& l, const char* what) {
  expect(rc == MPI_SUCCESS, std::string(l.name) + " " + what + " refused");
}

void wait(int rc, MPI_Request& r, const Layout& l, const char* what) {
  check_rc(rc, l, what);
  if (rc == MPI_SUCCESS) check_rc(MPI_Wait(&r, MPI_STATUS_IGNORE), l, what);
}

// Runs `ovx` and `mpi` on equal copies of `out` (inputs are shared: neither may change
// them) and compares the first `n` elements of the outputs.
void both(const Layout& l, const char* what, Buffer out, std::size_t n,
          const std::function<int(unsigned char*, MPI_Request*)>& ovx,
          const std::function<void(unsigned char*)>& mpi) {
  Buffer want = out;
  MPI_Request r = MPI_REQUEST_NULL;
  wait(ovx(out.data(), &r), r, l, what);
  mpi(want.data());
  compare(l, what, out, want, n);
}

void run_all(const Layout& l) {
  const auto P = static_cast<std::size_t>(g_size);
  const MPI_Datatype t = l.type;
  const MPI_Comm w = MPI_COMM_WORLD;
  Buffer one = filled(l, g_count, false), all = filled(l, g_count * P, false);
  unsigned char* s1 = one.data();
  unsigned char* sp = all.data();

  // bcast: the root's input ends with its data; every rank's output is compared.
  Buffer b = g_rank == 0 ? filled(l, g_count, true) : empty(l, g_count);
  both(
      l, "bcast", b, g_count,
      [&](unsigned char* o, MPI_Request* r) { return OVX_Ibcast(o, g_count, t, 0, w, r); },
      [&](unsigned char* o) { MPI_Bcast(o, g_count, t, 0, w); });
  both(
      l, "gather", empty(l, g_count * P), g_rank == 0 ? g_count * P : 0,
      [&](unsigned char* o, MPI_Request* r) {
        return OVX_Igather(s1, g_count, t, o, g_count, t, 0, w, r);
      },
      [&](unsigned char* o) { MPI_Gather(s1, g_count, t, o, g_count, t, 0, w); });
  both(
      l, "scatter", empty(l, g_count), g_count,
      [&](unsigned char* o, MPI_Request* r) {
        return OVX_Iscatter(sp, g_count, t, o, g_count, t, 0, w, r);
      },
      [&](unsigned char* o) { MPI_Scatter(sp, g_count, t, o, g_count, t, 0, w); });
  both(
      l, "allgather", empty(l, g_count * P), g_count * P,
      [&](unsigned char* o, MPI_Request* r) {
        return OVX_Iallgather(s1, g_count, t, o, g_count, t, w, r);
      },
      [&](unsigned char* o) { MPI_Allgather(s1, g_count, t, o, g_count, t, w); });
  both(
      l, "alltoall", empty(l, g_count * P), g_count * P,
      [&](unsigned char* o, MPI_Request* r) {
        return OVX_Ialltoall(sp, g_count, t, o, g_count, t, w, r);
      },
      [&](unsigned char* o) { MPI_Alltoall(sp, g_count, t, o, g_count, t, w); });
  both(
      l, "reduce MAXLOC", empty(l, g_count), g_rank == 0 ? g_count : 0,
      [&](unsigned char* o, MPI_Request* r) {
        return OVX_Ireduce(s1, o, g_count, t, MPI_MAXLOC, 0, w, r);
      },
      [&](unsigned char* o) { MPI_Reduce(s1, o, g_count, t, MPI_MAXLOC, 0, w); });
  both(
      l, "allreduce MINLOC", empty(l, g_count), g_count,
      [&](unsigned char* o, MPI_Request* r) {
        return OVX_Iallreduce(s1, o, g_count, t, MPI_MINLOC, w, r);
      },
      [&](unsigned char* o) { MPI_Allreduce(s1, o, g_count, t, MPI_MINLOC, w); });
  both(
      l, "reduce_scatter_block MAXLOC", empty(l, g_count), g_count,
      [&](unsigned char* o, MPI_Request* r) {
        return OVX_Ireduce_scatter_block(sp, o, g_count, t, MPI_MAXLOC, w, r);
      },
      [&](unsigned char* o) { MPI_Reduce_scatter_block(sp, o, g_count, t, MPI_MAXLOC, w); });

  // In place: the output also holds the input, with guard bytes in its padding.
  both(
      l, "allgather in place", filled(l, g_count * P, true), g_count * P,
      [&](unsigned char* o, MPI_Request* r) {
        return OVX_Iallgather(MPI_IN_PLACE, 0, t, o, g_count, t, w, r);
      },
      [&](unsigned char* o) { MPI_Allgather(MPI_IN_PLACE, 0, t, o, g_count, t, w); });
  both(
      l, "alltoall in place", filled(l, g_count * P, true), g_count * P,
      [&](unsigned char* o, MPI_Request* r) {
        return OVX_Ialltoall(MPI_IN_PLACE, 0, t, o, g_count, t, w, r);
      },
      [&](unsigned char* o) {
        // MPI's reference from a copy: MPICH 4.0.2's own in-place alltoall fails with
        // "Message truncated" on MPI_SHORT_INT (sendrecv_replace on a type with a gap).
        std::vector<unsigned char> copy(o, o + data_end(l, g_count * P));
        MPI_Alltoall(copy.data(), g_count, t, o, g_count, t, w);
      });
  both(
      l, "allreduce MAXLOC in place", filled(l, g_count, true), g_count,
      [&](unsigned char* o, MPI_Request* r) {
        return OVX_Iallreduce(MPI_IN_PLACE, o, g_count, t, MPI_MAXLOC, w, r);
      },
      [&](unsigned char* o) { MPI_Allreduce(MPI_IN_PLACE, o, g_count, t, MPI_MAXLOC, w); });
  both(
      l, "reduce_scatter_block MINLOC in place", filled(l, g_count * P, true), g_count,
      [&](unsigned char* o, MPI_Request* r) {
        return OVX_Ireduce_scatter_block(MPI_IN_PLACE, o, g_count, t, MPI_MINLOC, w, r);
      },
      [&](unsigned char* o) {
        MPI_Reduce_scatter_block(MPI_IN_PLACE, o, g_count, t, MPI_MINLOC, w);
      });
  // In place at the root of the rooted collectives.
  const bool root = g_rank == 0;
  both(
      l, "reduce MAXLOC in place", root ? filled(l, g_count, true) : empty(l, g_count),
      root ? g_count : 0,
      [&](unsigned char* o, MPI_Request* r) {
        return OVX_Ireduce(root ? MPI_IN_PLACE : s1, o, g_count, t, MPI_MAXLOC, 0, w, r);
      },
      [&](unsigned char* o) {
        MPI_Reduce(root ? MPI_IN_PLACE : s1, o, g_count, t, MPI_MAXLOC, 0, w);
      });
  Buffer own_first = empty(l, g_count * P);  // the root's block 0 holds its contribution
  if (root) set_fields(l, own_first, g_count);
  both(
      l, "gather in place", own_first, root ? g_count * P : 0,
      [&](unsigned char* o, MPI_Request* r) {
        return OVX_Igather(root ? MPI_IN_PLACE : s1, g_count, t, o, g_count, t, 0, w, r);
      },
      [&](unsigned char* o) {
        MPI_Gather(root ? MPI_IN_PLACE : s1, g_count, t, o, g_count, t, 0, w);
      });
  both(
      l, "scatter in place", empty(l, g_count), root ? 0 : g_count,
      [&](unsigned char* o, MPI_Request* r) {
        return OVX_Iscatter(sp, g_count, t, root ? MPI_IN_PLACE : o, g_count, t, 0, w, r);
      },
      [&](unsigned char* o) {
        MPI_Scatter(sp, g_count, t, root ? MPI_IN_PLACE : o, g_count, t, 0, w);
      });
  // The inputs were only read.
  Buffer one_again = filled(l, g_count, false), all_again = filled(l, g_count * P, false);
  expect(one.bytes == one_again.bytes && all.bytes == all_again.bytes,
         std::string(l.name) + ": an input buffer changed");
}

}  // namespace

int main(int argc, char** argv) {
  ovx_test::Watchdog watchdog(120, [] { return "rank " + std::to_string(g_rank); });
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &g_size);
  const std::vector<Layout> layouts = {
      layout<short>(MPI_SHORT_INT, "MPI_SHORT_INT"),
      layout<double>(MPI_DOUBLE_INT, "MPI_DOUBLE_INT"), layout<long>(MPI_LONG_INT, "MPI_LONG_INT"),
      layout<long double>(MPI_LONG_DOUBLE_INT, "MPI_LONG_DOUBLE_INT")};
  for (const Layout& l : layouts) {
    MPI_Aint lb = 0, extent = 0;
    MPI_Type_get_extent(l.type, &lb, &extent);
    expect(static_cast<std::size_t>(extent) == l.extent,
           std::string(l.name) + ": MPI's extent is not the C struct's");
    if (static_cast<std::size_t>(extent) != l.extent) continue;
    for (int count : {3, 20000}) {
#if defined(MPICH)
      // MPICH 4.0.2's own gather (binomial, 4 ranks) and in-place alltoall fail with
      // "Message truncated" on large pair-type buffers: no reference to compare with. The
      // algorithms are liboverlap's own on either MPI; Open MPI covers the large case.
      if (count > 3) continue;
#endif
      g_count = count;
      run_all(l);
    }
  }
  const int code = ovx_test::verdict("pair-types");
  MPI_Finalize();
  return code;
}
