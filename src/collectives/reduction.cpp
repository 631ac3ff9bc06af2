// Reduction kernels: one functor per operation, applied element-wise to the C type that
// represents an MPI datatype, and two tables built on first use (MPI handles are not
// constant expressions: Open MPI's are addresses) that map an MPI_Op to the operation and
// an MPI_Datatype to its category in MPI 4.0 sec. 6.9.2 and its C representation.
//
// The categories decide what is allowed, as the standard lists it (so MPI_LAND on
// MPI_INTEGER is refused even though MPICH accepts it; one exception: MPI_AINT, MPI_OFFSET
// and MPI_COUNT count as C integers, so the logical operations are accepted on them,
// where the standard's "multi-language" category does not define them): whatever the kernels
// compute is then what every conforming MPI computes, and a program that works with liboverlap
// works with MPI_Ireduce too.
#include "collectives/reduction.hpp"

#include <complex>
#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#include "collectives/pair.hpp"

namespace overlap::collectives {
namespace {

using progress::ReduceFn;

// ---------------------------------------------------------------------------------------
// Element-wise application
// ---------------------------------------------------------------------------------------

// Loads and stores go through memcpy: a block may sit at any byte offset of a staging
// buffer, and a user's MPI_C_BOOL buffer may hold bytes that are not valid `bool`
// values. A memcpy of one T compiles to a plain load or store. The operands never overlap
// (TaskGraph::reduce requires it), hence the restrict-qualified parameters: with them, and
// reduction.cpp built with the cheap vectorizer cost model (CMakeLists.txt), GCC turns the
// loops for int/float/double into SSE code without a run-time alias check.
// kReversed computes inout (op) in instead of in (op) inout: algorithms apply every
// operation with the lower rank's operand first on every rank (docs/liboverlap.md).
template <class T, class F, bool kReversed>
inline void elementwise_loop(const unsigned char* __restrict in, unsigned char* __restrict io,
                             std::size_t count) {
  for (std::size_t i = 0; i < count; ++i) {
    T x;
    T y;
    std::memcpy(&x, in + i * sizeof(T), sizeof(T));
    std::memcpy(&y, io + i * sizeof(T), sizeof(T));
    const T r = kReversed ? F{}(y, x) : F{}(x, y);
    std::memcpy(io + i * sizeof(T), &r, sizeof(T));
  }
}

template <class T, class F, bool kReversed = false>
void elementwise(const void* in, void* inout, std::size_t count) {
  elementwise_loop<T, F, kReversed>(static_cast<const unsigned char*>(in),
                                    static_cast<unsigned char*>(inout), count);
}

// Signed overflow is undefined in C++, while MPI libraries (C compiled without -ftrapv)
// wrap around. Unsigned arithmetic wraps by definition, and converting back to the signed
// type is modular since C++20. Types narrower than `unsigned` would be promoted to a
// signed int, whose product can overflow (65535 * 65535), hence at least `unsigned`.
template <class T>
using Modular =
    std::conditional_t<(sizeof(T) < sizeof(unsigned)), unsigned, std::make_unsigned_t<T>>;

// Each functor computes `in (op) inout`, the order of MPI_Reduce_local.
struct Max {
  template <class T>
  T operator()(T in, T io) const {
    return in > io ? in : io;
  }
};
struct Min {
  template <class T>
  T operator()(T in, T io) const {
    return in < io ? in : io;
  }
};
struct Sum {
  template <class T>
  T operator()(T in, T io) const {
    if constexpr (std::is_integral_v<T>) {
      return static_cast<T>(static_cast<Modular<T>>(in) + static_cast<Modular<T>>(io));
    } else {
      return in + io;
    }
  }
};
struct Prod {
  template <class T>
  T operator()(T in, T io) const {
    if constexpr (std::is_integral_v<T>) {
      return static_cast<T>(static_cast<Modular<T>>(in) * static_cast<Modular<T>>(io));
    } else {
      return in * io;
    }
  }
};
// Logical operations yield 0 or 1 in the operand's type (C semantics of && || and the
// value of Fortran's .TRUE. with gfortran, which both Open MPI and MPICH produce).
struct Land {
  template <class T>
  T operator()(T in, T io) const {
    return static_cast<T>(in != T{} && io != T{});
  }
};
struct Lor {
  template <class T>
  T operator()(T in, T io) const {
    return static_cast<T>(in != T{} || io != T{});
  }
};
struct Lxor {
  template <class T>
  T operator()(T in, T io) const {
    return static_cast<T>((in != T{}) != (io != T{}));
  }
};
struct Band {
  template <class T>
  T operator()(T in, T io) const {
    return static_cast<T>(in & io);
  }
};
struct Bor {
  template <class T>
  T operator()(T in, T io) const {
    return static_cast<T>(in | io);
  }
};
struct Bxor {
  template <class T>
  T operator()(T in, T io) const {
    return static_cast<T>(in ^ io);
  }
};

// MAXLOC/MINLOC: the winning value with its index; on equal values the smaller index
// (MPI 4.0 sec. 6.9.4), which makes the result independent of the reduction order.
template <bool kMax>
struct Loc {
  template <class P>
  P operator()(P in, P io) const {
    if (in.value == io.value) {
      if (in.index < io.index) io.index = in.index;
      return io;
    }
    const bool in_wins = kMax ? io.value < in.value : in.value < io.value;
    return in_wins ? in : io;
  }
};

// ---------------------------------------------------------------------------------------
// Operations and categories
// ---------------------------------------------------------------------------------------

enum class OpKind : std::uint8_t {
  max,
  min,
  sum,
  prod,
  land,
  lor,
  lxor,
  band,
  bor,
  bxor,
  maxloc,
  minloc
};

// MPI 4.0 sec. 6.9.2 groups the basic datatypes; each operation lists the groups it is
// defined for. Bits, so an operation's groups are one mask.
enum Category : unsigned {
  kCInteger = 1u << 0,
  kFortranInteger = 1u << 1,
  kFloating = 1u << 2,
  kLogical = 1u << 3,
  kComplex = 1u << 4,
  kByte = 1u << 5,
  kPair = 1u << 6,
};

struct OpInfo {
  MPI_Op op;
  OpKind kind;
  const char* name;
  unsigned allowed;  // Category bits
  const char* allowed_text;
};

const std::vector<OpInfo>& op_table() {
  static const std::vector<OpInfo> table = [] {
    constexpr unsigned kMinMax = kCInteger | kFortranInteger | kFloating;
    constexpr unsigned kArith = kMinMax | kComplex;
    constexpr unsigned kLogic = kCInteger | kLogical;
    constexpr unsigned kBits = kCInteger | kFortranInteger | kByte;
    const char* min_max = "C/Fortran integer, floating point";
    const char* arith = "C/Fortran integer, floating point, complex";
    const char* logic = "C integer, logical";
    const char* bits = "C/Fortran integer, MPI_BYTE";
    const char* loc =
        "value-index pairs: MPI_FLOAT_INT, MPI_DOUBLE_INT, MPI_LONG_INT, MPI_2INT, "
        "MPI_SHORT_INT, MPI_LONG_DOUBLE_INT, MPI_2REAL, MPI_2DOUBLE_PRECISION, "
        "MPI_2INTEGER";
    return std::vector<OpInfo>{
        {MPI_MAX, OpKind::max, "MPI_MAX", kMinMax, min_max},
        {MPI_MIN, OpKind::min, "MPI_MIN", kMinMax, min_max},
        {MPI_SUM, OpKind::sum, "MPI_SUM", kArith, arith},
        {MPI_PROD, OpKind::prod, "MPI_PROD", kArith, arith},
        {MPI_LAND, OpKind::land, "MPI_LAND", kLogic, logic},
        {MPI_LOR, OpKind::lor, "MPI_LOR", kLogic, logic},
        {MPI_LXOR, OpKind::lxor, "MPI_LXOR", kLogic, logic},
        {MPI_BAND, OpKind::band, "MPI_BAND", kBits, bits},
        {MPI_BOR, OpKind::bor, "MPI_BOR", kBits, bits},
        {MPI_BXOR, OpKind::bxor, "MPI_BXOR", kBits, bits},
        {MPI_MAXLOC, OpKind::maxloc, "MPI_MAXLOC", kPair, loc},
        {MPI_MINLOC, OpKind::minloc, "MPI_MINLOC", kPair, loc},
    };
  }();
  return table;
}

const OpInfo* find_op(MPI_Op op) {
  for (const OpInfo& info : op_table()) {
    if (info.op == op) return &info;
  }
  return nullptr;
}

// ---------------------------------------------------------------------------------------
// Kernels per C representation. A category's kernel set only needs the operations the
// category allows: find_reduction checks the category before asking.
// ---------------------------------------------------------------------------------------

// Both operand orders of one operation.
struct Kernels {
  ReduceFn forward = nullptr;
  ReduceFn reversed = nullptr;
};
template <class T, class F>
Kernels both() {
  return {&elementwise<T, F, false>, &elementwise<T, F, true>};
}

using Picker = Kernels (*)(OpKind);

template <class T>
Kernels integer_kernel(OpKind op) {
  switch (op) {
    case OpKind::max:
      return both<T, Max>();
    case OpKind::min:
      return both<T, Min>();
    case OpKind::sum:
      return both<T, Sum>();
    case OpKind::prod:
      return both<T, Prod>();
    case OpKind::land:
      return both<T, Land>();
    case OpKind::lor:
      return both<T, Lor>();
    case OpKind::lxor:
      return both<T, Lxor>();
    case OpKind::band:
      return both<T, Band>();
    case OpKind::bor:
      return both<T, Bor>();
    case OpKind::bxor:
      return both<T, Bxor>();
    default:
      return {};
  }
}

template <class T>
Kernels floating_kernel(OpKind op) {
  switch (op) {
    case OpKind::max:
      return both<T, Max>();
    case OpKind::min:
      return both<T, Min>();
    case OpKind::sum:
      return both<T, Sum>();
    case OpKind::prod:
      return both<T, Prod>();
    default:
      return {};
  }
}

// std::complex<T> is layout-compatible with T[2], C's T _Complex and Fortran's COMPLEX.
template <class T>
Kernels complex_kernel(OpKind op) {
  switch (op) {
    case OpKind::sum:
      return both<std::complex<T>, Sum>();
    case OpKind::prod:
      return both<std::complex<T>, Prod>();
    default:
      return {};
  }
}

// Logical types are handled as unsigned integers of their size: any nonzero byte pattern
// is true (a C bool holding 2 is still read safely), and the result is 0 or 1.
template <class T>
Kernels logical_kernel(OpKind op) {
  switch (op) {
    case OpKind::land:
      return both<T, Land>();
    case OpKind::lor:
      return both<T, Lor>();
    case OpKind::lxor:
      return both<T, Lxor>();
    default:
      return {};
  }
}

template <class P>
Kernels pair_kernel(OpKind op) {
  switch (op) {
    case OpKind::maxloc:
      return both<P, Loc<true>>();
    case OpKind::minloc:
      return both<P, Loc<false>>();
    default:
      return {};
  }
}

// The fixed-width integer of a size and signedness, so `long` and `long long` share one
// instantiation, and Fortran types (known only by their size at run time) map onto them.
template <std::size_t N, bool S>
struct IntOf;
template <>
struct IntOf<1, true> {
  using type = std::int8_t;
};
template <>
struct IntOf<2, true> {
  using type = std::int16_t;
};
template <>
struct IntOf<4, true> {
  using type = std::int32_t;
};
template <>
struct IntOf<8, true> {
  using type = std::int64_t;
};
template <>
struct IntOf<1, false> {
  using type = std::uint8_t;
};
template <>
struct IntOf<2, false> {
  using type = std::uint16_t;
};
template <>
struct IntOf<4, false> {
  using type = std::uint32_t;
};
template <>
struct IntOf<8, false> {
  using type = std::uint64_t;
};
template <class T>
using IntRepr = typename IntOf<sizeof(T), std::is_signed_v<T>>::type;

// ---------------------------------------------------------------------------------------
// Datatype table
// ---------------------------------------------------------------------------------------

struct TypeInfo {
  MPI_Datatype type;
  Category category;
  Picker pick;
  std::size_t extent;
};

// A predefined datatype the standard allows in reductions but liboverlap refuses, and why.
struct Unsupported {
  MPI_Datatype type;
  std::string reason;
};

class TypeTable {
 public:
  TypeTable() {
    add_c_types();
    add_fortran_types();
    add_pairs();
  }
  const TypeInfo* find(MPI_Datatype type) const {
    for (const TypeInfo& info : entries_) {
      if (info.type == type) return &info;
    }
    return nullptr;
  }
  const Unsupported* find_unsupported(MPI_Datatype type) const {
    for (const Unsupported& u : unsupported_) {
      if (u.type == type) return &u;
    }
    return nullptr;
  }

 private:
  void add_c_types();
  void add_fortran_types();
  void add_pairs();

  // Adds `type` represented by the C type T, provided MPI lays it out as T: a library
  // built differently (another long double, a Fortran compiler with other kinds) is
  // refused rather than reduced with the wrong arithmetic. Synonyms (MPI_LONG_LONG and
  // MPI_LONG_LONG_INT are one handle) keep the first entry.
  template <class T>
  void add(MPI_Datatype type, Category category, Picker pick) {
    if (type == MPI_DATATYPE_NULL || find(type) != nullptr) return;
    MPI_Aint lb = 0;
    MPI_Aint extent = 0;
    int size = 0;
    PMPI_Type_get_extent(type, &lb, &extent);
    PMPI_Type_size(type, &size);
    if (size <= 0) return;  // a Fortran type this build of MPI does not provide
    if (lb != 0 || extent != static_cast<MPI_Aint>(sizeof(T))) {
      unsupported_.push_back({type, "its layout in this MPI is not the C type's"});
      return;
    }
    entries_.push_back({type, category, pick, sizeof(T)});
  }

  static int size_of(MPI_Datatype type) {
    int size = 0;
    if (type != MPI_DATATYPE_NULL) PMPI_Type_size(type, &size);
    return size;
  }

  // Fortran integers and logicals exist in whatever sizes the Fortran compiler has.
  void add_sized_integer(MPI_Datatype type, Category category, bool logical);
  // Fortran REAL and COMPLEX kinds: single or double precision by size.
  void add_sized_real(MPI_Datatype type, bool complex);

  std::vector<TypeInfo> entries_;
  std::vector<Unsupported> unsupported_;
};

void TypeTable::add_c_types() {
  add<IntRepr<int>>(MPI_INT, kCInteger, &integer_kernel<IntRepr<int>>);
  add<IntRepr<long>>(MPI_LONG, kCInteger, &integer_kernel<IntRepr<long>>);
  add<IntRepr<short>>(MPI_SHORT, kCInteger, &integer_kernel<IntRepr<short>>);
  add<IntRepr<unsigned short>>(MPI_UNSIGNED_SHORT, kCInteger,
                               &integer_kernel<IntRepr<unsigned short>>);
  add<IntRepr<unsigned>>(MPI_UNSIGNED, kCInteger, &integer_kernel<IntRepr<unsigned>>);
  add<IntRepr<unsigned long>>(MPI_UNSIGNED_LONG, kCInteger,
                              &integer_kernel<IntRepr<unsigned long>>);
  add<IntRepr<long long>>(MPI_LONG_LONG_INT, kCInteger, &integer_kernel<IntRepr<long long>>);
  add<IntRepr<long long>>(MPI_LONG_LONG, kCInteger, &integer_kernel<IntRepr<long long>>);
  add<IntRepr<unsigned long long>>(MPI_UNSIGNED_LONG_LONG, kCInteger,
                                   &integer_kernel<IntRepr<unsigned long long>>);
  add<std::int8_t>(MPI_SIGNED_CHAR, kCInteger, &integer_kernel<std::int8_t>);
  add<std::uint8_t>(MPI_UNSIGNED_CHAR, kCInteger, &integer_kernel<std::uint8_t>);
  add<std::int8_t>(MPI_INT8_T, kCInteger, &integer_kernel<std::int8_t>);
  add<std::int16_t>(MPI_INT16_T, kCInteger, &integer_kernel<std::int16_t>);
  add<std::int32_t>(MPI_INT32_T, kCInteger, &integer_kernel<std::int32_t>);
  add<std::int64_t>(MPI_INT64_T, kCInteger, &integer_kernel<std::int64_t>);
  add<std::uint8_t>(MPI_UINT8_T, kCInteger, &integer_kernel<std::uint8_t>);
  add<std::uint16_t>(MPI_UINT16_T, kCInteger, &integer_kernel<std::uint16_t>);
  add<std::uint32_t>(MPI_UINT32_T, kCInteger, &integer_kernel<std::uint32_t>);
  add<std::uint64_t>(MPI_UINT64_T, kCInteger, &integer_kernel<std::uint64_t>);
  // MPI groups these "multi-language" types with the C integers.
  add<IntRepr<MPI_Aint>>(MPI_AINT, kCInteger, &integer_kernel<IntRepr<MPI_Aint>>);
  add<IntRepr<MPI_Offset>>(MPI_OFFSET, kCInteger, &integer_kernel<IntRepr<MPI_Offset>>);
  add<IntRepr<MPI_Count>>(MPI_COUNT, kCInteger, &integer_kernel<IntRepr<MPI_Count>>);

  add<float>(MPI_FLOAT, kFloating, &floating_kernel<float>);
  add<double>(MPI_DOUBLE, kFloating, &floating_kernel<double>);
  add<long double>(MPI_LONG_DOUBLE, kFloating, &floating_kernel<long double>);

  static_assert(sizeof(bool) == 1, "MPI_C_BOOL and MPI_CXX_BOOL are read as one byte");
  add<std::uint8_t>(MPI_C_BOOL, kLogical, &logical_kernel<std::uint8_t>);
  add<std::uint8_t>(MPI_CXX_BOOL, kLogical, &logical_kernel<std::uint8_t>);

  add<std::complex<float>>(MPI_C_FLOAT_COMPLEX, kComplex, &complex_kernel<float>);
  add<std::complex<float>>(MPI_C_COMPLEX, kComplex, &complex_kernel<float>);
  add<std::complex<double>>(MPI_C_DOUBLE_COMPLEX, kComplex, &complex_kernel<double>);
  add<std::complex<long double>>(MPI_C_LONG_DOUBLE_COMPLEX, kComplex, &complex_kernel<long double>);
  add<std::complex<float>>(MPI_CXX_FLOAT_COMPLEX, kComplex, &complex_kernel<float>);
  add<std::complex<double>>(MPI_CXX_DOUBLE_COMPLEX, kComplex, &complex_kernel<double>);
  add<std::complex<long double>>(MPI_CXX_LONG_DOUBLE_COMPLEX, kComplex,
                                 &complex_kernel<long double>);

  add<std::uint8_t>(MPI_BYTE, kByte, &integer_kernel<std::uint8_t>);
}

void TypeTable::add_sized_integer(MPI_Datatype type, Category category, bool logical) {
  switch (size_of(type)) {
    case 1:
      add<std::int8_t>(type, category,
                       logical ? &logical_kernel<std::uint8_t> : &integer_kernel<std::int8_t>);
      break;
    case 2:
      add<std::int16_t>(type, category,
                        logical ? &logical_kernel<std::uint16_t> : &integer_kernel<std::int16_t>);
      break;
    case 4:
      add<std::int32_t>(type, category,
                        logical ? &logical_kernel<std::uint32_t> : &integer_kernel<std::int32_t>);
      break;
    case 8:
      add<std::int64_t>(type, category,
                        logical ? &logical_kernel<std::uint64_t> : &integer_kernel<std::int64_t>);
      break;
    case 0:
      break;  // not provided by this build
    default:
      unsupported_.push_back({type, "no C integer type has its size"});
      break;
  }
}

void TypeTable::add_sized_real(MPI_Datatype type, bool complex) {
  const int size = size_of(type);
  const int single = complex ? 8 : 4;
  if (size == single) {
    if (complex)
      add<std::complex<float>>(type, kComplex, &complex_kernel<float>);
    else
      add<float>(type, kFloating, &floating_kernel<float>);
  } else if (size == 2 * single) {
    if (complex)
      add<std::complex<double>>(type, kComplex, &complex_kernel<double>);
    else
      add<double>(type, kFloating, &floating_kernel<double>);
  } else if (size != 0) {
    // Fortran REAL*16 is IEEE quad precision with gfortran, but MPI libraries disagree:
    // Open MPI reduces MPI_REAL16 as C long double (x87 extended), MPICH does neither
    // correctly in our tests. Refusing is the only answer that is never wrong.
    unsupported_.push_back({type, "Fortran extended/quad precision has no agreed C type"});
  }
}

void TypeTable::add_fortran_types() {
  add_sized_integer(MPI_INTEGER, kFortranInteger, false);
  add_sized_integer(MPI_INTEGER1, kFortranInteger, false);
  add_sized_integer(MPI_INTEGER2, kFortranInteger, false);
  add_sized_integer(MPI_INTEGER4, kFortranInteger, false);
  add_sized_integer(MPI_INTEGER8, kFortranInteger, false);
#ifdef MPI_INTEGER16
  add_sized_integer(MPI_INTEGER16, kFortranInteger, false);
#endif
  add_sized_integer(MPI_LOGICAL, kLogical, true);
  add_sized_real(MPI_REAL, false);
  add_sized_real(MPI_DOUBLE_PRECISION, false);
  add_sized_real(MPI_REAL4, false);
  add_sized_real(MPI_REAL8, false);
  add_sized_real(MPI_REAL16, false);
  add_sized_real(MPI_COMPLEX, true);
  add_sized_real(MPI_DOUBLE_COMPLEX, true);
  add_sized_real(MPI_COMPLEX8, true);
  add_sized_real(MPI_COMPLEX16, true);
  add_sized_real(MPI_COMPLEX32, true);
}

void TypeTable::add_pairs() {
  add<Pair<float, int>>(MPI_FLOAT_INT, kPair, &pair_kernel<Pair<float, int>>);
  add<Pair<double, int>>(MPI_DOUBLE_INT, kPair, &pair_kernel<Pair<double, int>>);
  add<Pair<long, int>>(MPI_LONG_INT, kPair, &pair_kernel<Pair<long, int>>);
  add<Pair<int, int>>(MPI_2INT, kPair, &pair_kernel<Pair<int, int>>);
  add<Pair<short, int>>(MPI_SHORT_INT, kPair, &pair_kernel<Pair<short, int>>);
  add<Pair<long double, int>>(MPI_LONG_DOUBLE_INT, kPair, &pair_kernel<Pair<long double, int>>);
  // Fortran pairs hold two values of one Fortran type: INTEGER, REAL, DOUBLE PRECISION.
  using I4 = Pair<std::int32_t, std::int32_t>;
  using I8 = Pair<std::int64_t, std::int64_t>;
  using F4 = Pair<float, float>;
  using F8 = Pair<double, double>;
  const MPI_Datatype integer_pair = MPI_2INTEGER;
  if (size_of(integer_pair) == 8) add<I4>(integer_pair, kPair, &pair_kernel<I4>);
  if (size_of(integer_pair) == 16) add<I8>(integer_pair, kPair, &pair_kernel<I8>);
  for (const MPI_Datatype real_pair : {MPI_2REAL, MPI_2DOUBLE_PRECISION}) {
    if (size_of(real_pair) == 8) add<F4>(real_pair, kPair, &pair_kernel<F4>);
    if (size_of(real_pair) == 16) add<F8>(real_pair, kPair, &pair_kernel<F8>);
  }
}

// Built on first use, after MPI_Init (it asks MPI for sizes and extents); thread-safe
// because a function-local static is initialised once.
const TypeTable& type_table() {
  static const TypeTable table;
  return table;
}

// Datatypes from MPI_Type_create_f90_integer/real/complex are Fortran integers, reals and
// complexes for the standard, but they are created at run time, so no table holds them.
bool classify_f90(MPI_Datatype type, TypeInfo& out) {
  int ni = 0;
  int na = 0;
  int nd = 0;
  int combiner = 0;
  PMPI_Type_get_envelope(type, &ni, &na, &nd, &combiner);
  const int size = [&] {
    int s = 0;
    PMPI_Type_size(type, &s);
    return s;
  }();
  out = TypeInfo{type, kFortranInteger, nullptr, static_cast<std::size_t>(size)};
  if (combiner == MPI_COMBINER_F90_INTEGER) {
    if (size == 1) out.pick = &integer_kernel<std::int8_t>;
    if (size == 2) out.pick = &integer_kernel<std::int16_t>;
    if (size == 4) out.pick = &integer_kernel<std::int32_t>;
    if (size == 8) out.pick = &integer_kernel<std::int64_t>;
  } else if (combiner == MPI_COMBINER_F90_REAL) {
    out.category = kFloating;
    if (size == 4) out.pick = &floating_kernel<float>;
    if (size == 8) out.pick = &floating_kernel<double>;
  } else if (combiner == MPI_COMBINER_F90_COMPLEX) {
    out.category = kComplex;
    if (size == 8) out.pick = &complex_kernel<float>;
    if (size == 16) out.pick = &complex_kernel<double>;
  }
  MPI_Aint lb = 0;
  MPI_Aint extent = 0;
  PMPI_Type_get_extent(type, &lb, &extent);
  return out.pick != nullptr && lb == 0 && extent == size;
}

// ---------------------------------------------------------------------------------------
// Refusals: one line naming the operation and the datatype
// ---------------------------------------------------------------------------------------

bool is_named(MPI_Datatype type) {
  int ni = 0;
  int na = 0;
  int nd = 0;
  int combiner = 0;
  PMPI_Type_get_envelope(type, &ni, &na, &nd, &combiner);
  return combiner == MPI_COMBINER_NAMED;
}

std::string type_name(MPI_Datatype type) {
  if (type == MPI_DATATYPE_NULL) return "MPI_DATATYPE_NULL";
  char name[MPI_MAX_OBJECT_NAME] = {};
  int len = 0;
  PMPI_Type_get_name(type, name, &len);
  const std::string given(name, static_cast<std::size_t>(len > 0 ? len : 0));
  if (is_named(type)) return given.empty() ? "an unnamed predefined datatype" : given;
  return given.empty() ? "a derived datatype" : "derived datatype '" + given + "'";
}

std::string op_name(MPI_Op op) {
  if (const OpInfo* info = find_op(op)) return info->name;
  if (op == MPI_OP_NULL) return "MPI_OP_NULL";
  if (op == MPI_REPLACE) return "MPI_REPLACE";
  if (op == MPI_NO_OP) return "MPI_NO_OP";
  return "a user-defined operation";
}

ReductionLookup refuse(std::string why) { return ReductionLookup{ReduceKernel{}, std::move(why)}; }

ReductionLookup refuse_op(MPI_Op op, MPI_Datatype type) {
  const std::string on = " on " + type_name(type);
  if (op == MPI_OP_NULL) return refuse("MPI_OP_NULL" + on + ": not an operation");
  if (op == MPI_REPLACE || op == MPI_NO_OP) {
    return refuse(op_name(op) + on +
                  " is not a reduction (it exists for one-sided accumulate operations)");
  }
  // A user function may be non-commutative or carry state; liboverlap's algorithms
  // reorder operands and run kernels on the progress thread, so they are not offered.
  return refuse("a user-defined operation" + on +
                " is not supported (liboverlap reduces with predefined operations only)");
}

ReductionLookup refuse_type(const OpInfo& op, MPI_Datatype type) {
  const std::string name = type_name(type);
  if (type == MPI_DATATYPE_NULL) {
    return refuse(std::string(op.name) + " on MPI_DATATYPE_NULL: not a datatype");
  }
  if (!is_named(type)) {
    return refuse(std::string(op.name) + " on " + name +
                  " is not supported (liboverlap reduces predefined datatypes only)");
  }
  if (const Unsupported* u = type_table().find_unsupported(type)) {
    return refuse(std::string(op.name) + " on " + name + " is not supported by liboverlap (" +
                  u->reason + ")");
  }
  return refuse(std::string(op.name) + " is not defined for " + name +
                " (allowed: " + op.allowed_text + ")");
}

}  // namespace

ReductionLookup find_reduction(MPI_Op op, MPI_Datatype type) {
  const OpInfo* info = find_op(op);
  if (info == nullptr) return refuse_op(op, type);
  TypeInfo f90{};
  const TypeInfo* t = nullptr;
  if (type != MPI_DATATYPE_NULL) {
    t = type_table().find(type);
    if (t == nullptr && !is_named(type) && classify_f90(type, f90)) t = &f90;
  }
  if (t == nullptr) return refuse_type(*info, type);
  if ((info->allowed & t->category) == 0) {
    return refuse(std::string(info->name) + " is not defined for " + type_name(type) +
                  " (allowed: " + info->allowed_text + ")");
  }
  // Every category's kernel set covers the operations allowed for it. elem_size is the
  // extent, not MPI_Type_size: MPI_DOUBLE_INT carries 12 bytes of data but elements sit
  // 16 bytes apart in a buffer, and the algorithms step through buffers by elem_size.
  const Kernels k = t->pick(info->kind);
  return ReductionLookup{ReduceKernel{k.forward, k.reversed, t->extent}, {}};
}

}  // namespace overlap::collectives
