// Reduction kernels against the MPI library itself: for every predefined operation and
// every predefined datatype, find_reduction either returns a kernel whose result equals
// MPI_Reduce_local's on random data, or refuses with one line naming both, exactly where
// MPI 4.0 sec. 6.9.2 does not define the operation. The standard's table is restated
// here rather than taken from reduction.cpp, so a slip in one is caught by the other.
#include "collectives/reduction.hpp"

#include <gtest/gtest.h>
#include <mpi.h>

#include <algorithm>
#include <climits>
#include <cmath>
#include <complex>
#include <cstdint>
#include <cstring>
#include <iostream>
#include <limits>
#include <map>
#include <random>
#include <string>
#include <vector>

namespace overlap::collectives {
namespace {

// MPI_Reduce_local needs MPI initialised. This binary also holds the algorithm tests,
// which need no MPI, and ctest runs every test as its own process; an Open MPI singleton
// start costs ~0.6 s, so MPI starts on the first test that asks for it. The environment
// finalizes it after the last test, as MPI requires before exit.
class MpiEnvironment : public ::testing::Environment {
 public:
  static void require() {
    int initialized = 0;
    MPI_Initialized(&initialized);
    if (initialized != 0) return;
    MPI_Init(nullptr, nullptr);
    owned_ = true;
    // Refusals are tested by return code, not by aborting.
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
  }
  void TearDown() override {
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (owned_ && finalized == 0) MPI_Finalize();
  }

 private:
  static inline bool owned_ = false;
};

[[maybe_unused]] ::testing::Environment* const kMpiEnvironment =
    ::testing::AddGlobalTestEnvironment(new MpiEnvironment);

// Every test here needs MPI, even to build its list of cases (Fortran type sizes).
class Reduction : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { MpiEnvironment::require(); }
};

// ---------------------------------------------------------------------------------------
// The standard's table (MPI 4.0 sec. 6.9.2), restated
// ---------------------------------------------------------------------------------------

enum Category : unsigned {
  kCInteger = 1,
  kFortranInteger = 2,
  kFloating = 4,
  kLogical = 8,
  kComplex = 16,
  kByte = 32,
  kPair = 64
};

struct OpCase {
  MPI_Op op;
  const char* name;
  unsigned allowed;
};

std::vector<OpCase> all_ops() {
  const unsigned min_max = kCInteger | kFortranInteger | kFloating;
  const unsigned logic = kCInteger | kLogical;
  const unsigned bits = kCInteger | kFortranInteger | kByte;
  return {{MPI_MAX, "MPI_MAX", min_max},
          {MPI_MIN, "MPI_MIN", min_max},
          {MPI_SUM, "MPI_SUM", min_max | kComplex},
          {MPI_PROD, "MPI_PROD", min_max | kComplex},
          {MPI_LAND, "MPI_LAND", logic},
          {MPI_LOR, "MPI_LOR", logic},
          {MPI_LXOR, "MPI_LXOR", logic},
          {MPI_BAND, "MPI_BAND", bits},
          {MPI_BOR, "MPI_BOR", bits},
          {MPI_BXOR, "MPI_BXOR", bits},
          {MPI_MAXLOC, "MPI_MAXLOC", kPair},
          {MPI_MINLOC, "MPI_MINLOC", kPair}};
}

// Data: small integers make every floating-point result exact; wide values are arbitrary
// reals, where only the complex product may round differently (its formula is not fixed).
enum class Mode { small, wide };
using Rng = std::mt19937_64;

// ---------------------------------------------------------------------------------------
// Per-representation data generation and comparison
// ---------------------------------------------------------------------------------------

template <class T>
struct IntTraits {
  using type = T;
  // Any bit pattern, so sums and products overflow; a quarter zeros for logical ops.
  static T draw(Rng& rng, Mode) { return rng() % 4 == 0 ? T{0} : static_cast<T>(rng()); }
  static bool same(T a, T b, Mode) { return a == b; }
  static std::string show(T v) { return std::to_string(+v); }
  // Where the MPI library itself is wrong in a documented way, and our kernel gives the
  // result the C definition gives, the element is excused (and reported); any other
  // difference fails. Returns the defect's description, or nullptr.
  static const char* library_defect(MPI_Op op, T in, T io, T ours, T mpi) {
    if (op == MPI_SUM && sizeof(T) <= 2) {
      // Open MPI's op/avx component adds 8- and 16-bit integers with saturating
      // instructions (open-mpi/ompi#8045, closed "wontfix" for 4.1).
      const long wide = static_cast<long>(in) + static_cast<long>(io);
      const long lo = std::numeric_limits<T>::min();
      const long hi = std::numeric_limits<T>::max();
      if (ours == static_cast<T>(wide) && mpi == static_cast<T>(std::clamp(wide, lo, hi))) {
        return "saturating 8/16-bit MPI_SUM (Open MPI op/avx, open-mpi/ompi#8045)";
      }
    }
    if (op == MPI_MAX || op == MPI_MIN) {
      // Comparisons with the wrong signedness: Open MPI 4.1.4 for MPI_UNSIGNED_LONG
      // (open-mpi/ompi#10525, #10648) and MPI_OFFSET, MPICH 4.0.2 for unsigned types
      // (pmodels/mpich#6083).
      using Flip =
          std::conditional_t<std::is_signed_v<T>, std::make_unsigned_t<T>, std::make_signed_t<T>>;
      const Flip a = static_cast<Flip>(in);
      const Flip b = static_cast<Flip>(io);
      const T wrong = static_cast<T>(op == MPI_MAX ? std::max(a, b) : std::min(a, b));
      const T right = op == MPI_MAX ? std::max(in, io) : std::min(in, io);
      if (ours == right && mpi == wrong) {
        return "MPI_MAX/MPI_MIN comparing with the wrong signedness (as in "
               "open-mpi/ompi#10525, pmodels/mpich#6083)";
      }
    }
    return nullptr;
  }
};

// C bool, C++ bool, Fortran LOGICAL: the values true and false only.
template <class T>
struct LogicalTraits : IntTraits<T> {
  static T draw(Rng& rng, Mode) { return static_cast<T>(rng() % 2); }
};

template <class T>
struct FloatTraits {
  using type = T;
  static T draw(Rng& rng, Mode mode) {
    if (mode == Mode::small) return static_cast<T>(static_cast<int>(rng() % 13) - 6);
    return std::uniform_real_distribution<T>(T{-2}, T{2})(rng);
  }
  static bool same(T a, T b, Mode mode) {
    if (mode == Mode::small) return a == b && std::signbit(a) == std::signbit(b);
    const T scale = std::max({T{1}, std::fabs(a), std::fabs(b)});
    return std::fabs(a - b) <= 16 * std::numeric_limits<T>::epsilon() * scale;
  }
  static std::string show(T v) { return std::to_string(static_cast<long double>(v)); }
  static const char* library_defect(MPI_Op, T, T, T, T) { return nullptr; }
};

template <class T>
struct ComplexTraits {
  using type = std::complex<T>;
  static type draw(Rng& rng, Mode mode) {
    const T re = FloatTraits<T>::draw(rng, mode);
    return {re, FloatTraits<T>::draw(rng, mode)};
  }
  static bool same(type a, type b, Mode mode) {
    return FloatTraits<T>::same(a.real(), b.real(), mode) &&
           FloatTraits<T>::same(a.imag(), b.imag(), mode);
  }
  static std::string show(type v) {
    return "(" + FloatTraits<T>::show(v.real()) + ", " + FloatTraits<T>::show(v.imag()) + ")";
  }
  static const char* library_defect(MPI_Op, type, type, type, type) { return nullptr; }
};

// The C layout MPI documents for MPI_DOUBLE_INT and friends.
template <class V, class I>
struct PairTraits {
  struct type {
    V value;
    I index;
  };
  // Few distinct values and indices, so ties (decided by the smaller index) are common.
  static type draw(Rng& rng, Mode) {
    return {static_cast<V>(rng() % 4), static_cast<I>(rng() % 8)};
  }
  // Fields only: padding bytes are not part of the datatype.
  static bool same(type a, type b, Mode) { return a.value == b.value && a.index == b.index; }
  static std::string show(type v) {
    return "{" + std::to_string(static_cast<long double>(v.value)) + ", " +
           std::to_string(static_cast<long double>(v.index)) + "}";
  }
  static const char* library_defect(MPI_Op, type, type, type, type) { return nullptr; }
};

// Runs our kernel and MPI_Reduce_local on the same random operands; "" when they agree.
// `excused` counts elements where only the MPI library is wrong (see library_defect).
using Checker = std::string (*)(MPI_Datatype, MPI_Op, progress::ReduceFn, Mode, std::uint64_t,
                                std::map<std::string, int>& excused);

template <class Tr>
std::string check(MPI_Datatype type, MPI_Op op, progress::ReduceFn fn, Mode mode,
                  std::uint64_t seed, std::map<std::string, int>& excused) {
  using T = typename Tr::type;
  constexpr std::size_t kCount = 1031;  // odd, so vectorised loops have a remainder
  Rng rng(seed);
  std::vector<T> in(kCount);
  std::vector<T> before(kCount);
  for (std::size_t i = 0; i < kCount; ++i) {
    in[i] = Tr::draw(rng, mode);
    before[i] = Tr::draw(rng, mode);
  }
  std::vector<T> ours = before;
  std::vector<T> theirs = before;
  fn(in.data(), ours.data(), kCount);
  const int rc = MPI_Reduce_local(in.data(), theirs.data(), static_cast<int>(kCount), type, op);
  if (rc != MPI_SUCCESS) return "MPI_Reduce_local failed with code " + std::to_string(rc);
  for (std::size_t i = 0; i < kCount; ++i) {
    if (Tr::same(ours[i], theirs[i], mode)) continue;
    if (const char* defect = Tr::library_defect(op, in[i], before[i], ours[i], theirs[i])) {
      ++excused[defect];
      continue;
    }
    return "element " + std::to_string(i) + ": " + Tr::show(in[i]) + " (op) " +
           Tr::show(before[i]) + " = " + Tr::show(ours[i]) + " here, " + Tr::show(theirs[i]) +
           " in MPI";
  }
  return {};
}

struct TypeCase {
  MPI_Datatype type;
  const char* name;
  Category category;
  Checker checker;
};

int size_of(MPI_Datatype type) {
  int size = 0;
  if (type != MPI_DATATYPE_NULL) MPI_Type_size(type, &size);
  return size;
}

// Fortran types come in whatever sizes the Fortran compiler has; 0 = not in this build.
Checker fortran_integer(MPI_Datatype type) {
  switch (size_of(type)) {
    case 1:
      return &check<IntTraits<std::int8_t>>;
    case 2:
      return &check<IntTraits<std::int16_t>>;
    case 4:
      return &check<IntTraits<std::int32_t>>;
    case 8:
      return &check<IntTraits<std::int64_t>>;
    default:
      return nullptr;
  }
}
Checker fortran_real(MPI_Datatype type) {
  switch (size_of(type)) {
    case 4:
      return &check<FloatTraits<float>>;
    case 8:
      return &check<FloatTraits<double>>;
    default:
      return nullptr;
  }
}
Checker fortran_complex(MPI_Datatype type) {
  switch (size_of(type)) {
    case 8:
      return &check<ComplexTraits<float>>;
    case 16:
      return &check<ComplexTraits<double>>;
    default:
      return nullptr;
  }
}

// Variadic: pair traits have a comma in their template arguments.
#define OVX_CASE(type, category, ...) \
  TypeCase { type, #type, category, &check<__VA_ARGS__> }

std::vector<TypeCase> c_integer_cases() {
  return {OVX_CASE(MPI_INT, kCInteger, IntTraits<int>),
          OVX_CASE(MPI_LONG, kCInteger, IntTraits<long>),
          OVX_CASE(MPI_SHORT, kCInteger, IntTraits<short>),
          OVX_CASE(MPI_UNSIGNED_SHORT, kCInteger, IntTraits<unsigned short>),
          OVX_CASE(MPI_UNSIGNED, kCInteger, IntTraits<unsigned>),
          OVX_CASE(MPI_UNSIGNED_LONG, kCInteger, IntTraits<unsigned long>),
          OVX_CASE(MPI_LONG_LONG_INT, kCInteger, IntTraits<long long>),
          OVX_CASE(MPI_LONG_LONG, kCInteger, IntTraits<long long>),
          OVX_CASE(MPI_UNSIGNED_LONG_LONG, kCInteger, IntTraits<unsigned long long>),
          OVX_CASE(MPI_SIGNED_CHAR, kCInteger, IntTraits<signed char>),
          OVX_CASE(MPI_UNSIGNED_CHAR, kCInteger, IntTraits<unsigned char>),
          OVX_CASE(MPI_INT8_T, kCInteger, IntTraits<std::int8_t>),
          OVX_CASE(MPI_INT16_T, kCInteger, IntTraits<std::int16_t>),
          OVX_CASE(MPI_INT32_T, kCInteger, IntTraits<std::int32_t>),
          OVX_CASE(MPI_INT64_T, kCInteger, IntTraits<std::int64_t>),
          OVX_CASE(MPI_UINT8_T, kCInteger, IntTraits<std::uint8_t>),
          OVX_CASE(MPI_UINT16_T, kCInteger, IntTraits<std::uint16_t>),
          OVX_CASE(MPI_UINT32_T, kCInteger, IntTraits<std::uint32_t>),
          OVX_CASE(MPI_UINT64_T, kCInteger, IntTraits<std::uint64_t>),
          OVX_CASE(MPI_AINT, kCInteger, IntTraits<MPI_Aint>),
          OVX_CASE(MPI_OFFSET, kCInteger, IntTraits<MPI_Offset>),
          OVX_CASE(MPI_COUNT, kCInteger, IntTraits<MPI_Count>)};
}

std::vector<TypeCase> fortran_integer_cases() {
  std::vector<TypeCase> cases;
  const std::pair<MPI_Datatype, const char*> types[] = {{MPI_INTEGER, "MPI_INTEGER"},
                                                        {MPI_INTEGER1, "MPI_INTEGER1"},
                                                        {MPI_INTEGER2, "MPI_INTEGER2"},
                                                        {MPI_INTEGER4, "MPI_INTEGER4"},
                                                        {MPI_INTEGER8, "MPI_INTEGER8"}};
  for (const auto& [type, name] : types) {
    if (Checker c = fortran_integer(type)) cases.push_back({type, name, kFortranInteger, c});
  }
  return cases;
}

std::vector<TypeCase> floating_cases() {
  std::vector<TypeCase> cases = {OVX_CASE(MPI_FLOAT, kFloating, FloatTraits<float>),
                                 OVX_CASE(MPI_DOUBLE, kFloating, FloatTraits<double>),
                                 OVX_CASE(MPI_LONG_DOUBLE, kFloating, FloatTraits<long double>)};
  const std::pair<MPI_Datatype, const char*> fortran[] = {
      {MPI_REAL, "MPI_REAL"},
      {MPI_DOUBLE_PRECISION, "MPI_DOUBLE_PRECISION"},
      {MPI_REAL4, "MPI_REAL4"},
      {MPI_REAL8, "MPI_REAL8"}};
  for (const auto& [type, name] : fortran) {
    if (Checker c = fortran_real(type)) cases.push_back({type, name, kFloating, c});
  }
  return cases;
}

std::vector<TypeCase> logical_cases() {
  std::vector<TypeCase> cases = {OVX_CASE(MPI_C_BOOL, kLogical, LogicalTraits<std::uint8_t>),
                                 OVX_CASE(MPI_CXX_BOOL, kLogical, LogicalTraits<std::uint8_t>)};
  switch (size_of(MPI_LOGICAL)) {
    case 4:
      cases.push_back(OVX_CASE(MPI_LOGICAL, kLogical, LogicalTraits<std::uint32_t>));
      break;
    case 8:
      cases.push_back(OVX_CASE(MPI_LOGICAL, kLogical, LogicalTraits<std::uint64_t>));
      break;
    default:
      break;
  }
  return cases;
}

std::vector<TypeCase> complex_cases() {
  std::vector<TypeCase> cases = {
      OVX_CASE(MPI_C_COMPLEX, kComplex, ComplexTraits<float>),
      OVX_CASE(MPI_C_FLOAT_COMPLEX, kComplex, ComplexTraits<float>),
      OVX_CASE(MPI_C_DOUBLE_COMPLEX, kComplex, ComplexTraits<double>),
      OVX_CASE(MPI_C_LONG_DOUBLE_COMPLEX, kComplex, ComplexTraits<long double>),
      OVX_CASE(MPI_CXX_FLOAT_COMPLEX, kComplex, ComplexTraits<float>),
      OVX_CASE(MPI_CXX_DOUBLE_COMPLEX, kComplex, ComplexTraits<double>),
      OVX_CASE(MPI_CXX_LONG_DOUBLE_COMPLEX, kComplex, ComplexTraits<long double>)};
  const std::pair<MPI_Datatype, const char*> fortran[] = {
      {MPI_COMPLEX, "MPI_COMPLEX"},
      {MPI_DOUBLE_COMPLEX, "MPI_DOUBLE_COMPLEX"},
      {MPI_COMPLEX8, "MPI_COMPLEX8"},
      {MPI_COMPLEX16, "MPI_COMPLEX16"}};
  for (const auto& [type, name] : fortran) {
    if (Checker c = fortran_complex(type)) cases.push_back({type, name, kComplex, c});
  }
  return cases;
}

std::vector<TypeCase> pair_cases() {
  std::vector<TypeCase> cases = {
      OVX_CASE(MPI_FLOAT_INT, kPair, PairTraits<float, int>),
      OVX_CASE(MPI_DOUBLE_INT, kPair, PairTraits<double, int>),
      OVX_CASE(MPI_LONG_INT, kPair, PairTraits<long, int>),
      OVX_CASE(MPI_2INT, kPair, PairTraits<int, int>),
      OVX_CASE(MPI_SHORT_INT, kPair, PairTraits<short, int>),
      OVX_CASE(MPI_LONG_DOUBLE_INT, kPair, PairTraits<long double, int>)};
  if (size_of(MPI_2INTEGER) == 8) {
    cases.push_back(OVX_CASE(MPI_2INTEGER, kPair, PairTraits<std::int32_t, std::int32_t>));
  }
  if (size_of(MPI_2REAL) == 8) {
    cases.push_back(OVX_CASE(MPI_2REAL, kPair, PairTraits<float, float>));
  }
  if (size_of(MPI_2DOUBLE_PRECISION) == 16) {
    cases.push_back(OVX_CASE(MPI_2DOUBLE_PRECISION, kPair, PairTraits<double, double>));
  }
  return cases;
}

#undef OVX_CASE

// The name MPI gives a handle (MPI_LONG_LONG is MPI_LONG_LONG_INT's handle, so refusals
// name it that way).
std::string mpi_name(MPI_Datatype type) {
  char name[MPI_MAX_OBJECT_NAME] = {};
  int len = 0;
  MPI_Type_get_name(type, name, &len);
  return std::string(name, static_cast<std::size_t>(len));
}

void expect_refused(const ReductionLookup& r, const std::string& op, const std::string& type) {
  EXPECT_EQ(r.kernel.fn, nullptr);
  EXPECT_NE(r.error.find(op), std::string::npos) << r.error;
  EXPECT_NE(r.error.find(type), std::string::npos) << r.error;
  EXPECT_EQ(r.error.find('\n'), std::string::npos) << r.error;
}

// Every operation on every type of a category: defined ones match MPI in both data
// modes, undefined ones are refused by name. Returns how many pairs were compared.
int run_category(const std::vector<TypeCase>& cases) {
  int compared = 0;
  std::uint64_t seed = 20240611;
  for (const TypeCase& tc : cases) {
    MPI_Aint lb = 0;
    MPI_Aint extent = 0;
    MPI_Type_get_extent(tc.type, &lb, &extent);
    for (const OpCase& op : all_ops()) {
      SCOPED_TRACE(std::string(op.name) + " on " + tc.name);
      const ReductionLookup r = find_reduction(op.op, tc.type);
      if ((op.allowed & tc.category) == 0) {
        expect_refused(r, op.name, mpi_name(tc.type));
        continue;
      }
      if (r.kernel.fn == nullptr) {
        ADD_FAILURE() << "refused: " << r.error;
        continue;
      }
      EXPECT_EQ(r.kernel.elem_size, static_cast<std::size_t>(extent));
      std::map<std::string, int> excused;
      for (const Mode mode : {Mode::small, Mode::wide}) {
        ++seed;
        EXPECT_EQ(tc.checker(tc.type, op.op, r.kernel.fn, mode, seed, excused), "")
            << (mode == Mode::small ? "small integers" : "wide values") << ", seed " << seed;
      }
      for (const auto& [defect, elements] : excused) {
        std::cout << "[   NOTE   ] " << op.name << " on " << tc.name << ": MPI differs in "
                  << elements << " elements by a known library defect: " << defect << "\n";
      }
      ++compared;
    }
  }
  return compared;
}

TEST_F(Reduction, CIntegersMatchMpi) { EXPECT_EQ(run_category(c_integer_cases()), 22 * 10); }

TEST_F(Reduction, FortranIntegersMatchMpi) {
  const std::vector<TypeCase> cases = fortran_integer_cases();
  ASSERT_FALSE(cases.empty()) << "MPI_INTEGER should exist in both Open MPI and MPICH";
  EXPECT_EQ(run_category(cases), static_cast<int>(cases.size()) * 7);
}

TEST_F(Reduction, FloatingPointMatchesMpi) {
  const std::vector<TypeCase> cases = floating_cases();
  EXPECT_EQ(run_category(cases), static_cast<int>(cases.size()) * 4);
}

TEST_F(Reduction, LogicalsMatchMpi) {
  const std::vector<TypeCase> cases = logical_cases();
  EXPECT_EQ(run_category(cases), static_cast<int>(cases.size()) * 3);
}

TEST_F(Reduction, ComplexMatchesMpi) {
  const std::vector<TypeCase> cases = complex_cases();
  EXPECT_EQ(run_category(cases), static_cast<int>(cases.size()) * 2);
}

TEST_F(Reduction, ByteMatchesMpi) {
  EXPECT_EQ(run_category({{MPI_BYTE, "MPI_BYTE", kByte, &check<IntTraits<std::uint8_t>>}}), 3);
}

TEST_F(Reduction, PairsMatchMpi) {
  const std::vector<TypeCase> cases = pair_cases();
  EXPECT_EQ(run_category(cases), static_cast<int>(cases.size()) * 2);
}

// Datatypes made by MPI_Type_create_f90_* are Fortran integers/reals/complexes for the
// standard, though created at run time.
TEST_F(Reduction, Fortran90TypesMatchMpi) {
  MPI_Datatype integer = MPI_DATATYPE_NULL;
  MPI_Datatype real = MPI_DATATYPE_NULL;
  MPI_Datatype cplx = MPI_DATATYPE_NULL;
  ASSERT_EQ(MPI_Type_create_f90_integer(9, &integer), MPI_SUCCESS);
  ASSERT_EQ(MPI_Type_create_f90_real(15, MPI_UNDEFINED, &real), MPI_SUCCESS);
  ASSERT_EQ(MPI_Type_create_f90_complex(6, MPI_UNDEFINED, &cplx), MPI_SUCCESS);
  EXPECT_EQ(run_category({{integer, "f90 integer(9)", kFortranInteger, fortran_integer(integer)},
                          {real, "f90 real(15)", kFloating, fortran_real(real)},
                          {cplx, "f90 complex(6)", kComplex, fortran_complex(cplx)}}),
            7 + 4 + 2);
}

// ---------------------------------------------------------------------------------------
// Semantics spelled out (what the random comparison covers, made explicit)
// ---------------------------------------------------------------------------------------

TEST_F(Reduction, SignedArithmeticWrapsAround) {
  const ReductionLookup sum = find_reduction(MPI_SUM, MPI_INT);
  ASSERT_NE(sum.kernel.fn, nullptr);
  int in[2] = {1, INT_MIN};
  int io[2] = {INT_MAX, -1};
  sum.kernel.fn(in, io, 2);
  EXPECT_EQ(io[0], INT_MIN);
  EXPECT_EQ(io[1], INT_MAX);

  const ReductionLookup prod = find_reduction(MPI_PROD, MPI_SHORT);
  ASSERT_NE(prod.kernel.fn, nullptr);
  short a = -32768;
  short b = -1;  // -32768 * -1 = 32768 wraps to -32768
  prod.kernel.fn(&a, &b, 1);
  EXPECT_EQ(b, -32768);
}

// What MPI libraries get wrong in places (see library_defect), pinned down here against
// the C definition alone.
TEST_F(Reduction, UnsignedAndNarrowTypesFollowC) {
  const ReductionLookup max_ul = find_reduction(MPI_MAX, MPI_UNSIGNED_LONG);
  ASSERT_NE(max_ul.kernel.fn, nullptr);
  unsigned long ul_in[2] = {0, ULONG_MAX};
  unsigned long ul_io[2] = {ULONG_MAX, 1};
  max_ul.kernel.fn(ul_in, ul_io, 2);
  EXPECT_EQ(ul_io[0], ULONG_MAX);
  EXPECT_EQ(ul_io[1], ULONG_MAX);

  const ReductionLookup min_off = find_reduction(MPI_MIN, MPI_OFFSET);
  ASSERT_NE(min_off.kernel.fn, nullptr);
  MPI_Offset off_in = -1;
  MPI_Offset off_io = 0;
  min_off.kernel.fn(&off_in, &off_io, 1);
  EXPECT_EQ(off_io, -1);

  // Wider than any SIMD register, so a vectorised loop is exercised too.
  const ReductionLookup sum_uc = find_reduction(MPI_SUM, MPI_UNSIGNED_CHAR);
  ASSERT_NE(sum_uc.kernel.fn, nullptr);
  std::vector<unsigned char> uc_in(200, 200);
  std::vector<unsigned char> uc_io(200, 100);
  sum_uc.kernel.fn(uc_in.data(), uc_io.data(), uc_io.size());
  EXPECT_EQ(std::count(uc_io.begin(), uc_io.end(), 44), 200);  // 300 mod 256
}

TEST_F(Reduction, LocTiesTakeTheSmallerIndex) {
  struct DoubleInt {
    double value;
    int index;
  };
  for (MPI_Op op : {MPI_MAXLOC, MPI_MINLOC}) {
    const ReductionLookup r = find_reduction(op, MPI_DOUBLE_INT);
    ASSERT_NE(r.kernel.fn, nullptr);
    EXPECT_EQ(r.kernel.elem_size, sizeof(DoubleInt));  // the extent, padding included
    DoubleInt in[3] = {{1.0, 7}, {1.0, 2}, {5.0, 9}};
    DoubleInt io[3] = {{1.0, 3}, {1.0, 4}, {-5.0, 1}};
    r.kernel.fn(in, io, 3);
    EXPECT_EQ(io[0].index, 3);
    EXPECT_EQ(io[1].index, 2);
    EXPECT_EQ(io[2].value, op == MPI_MAXLOC ? 5.0 : -5.0);
    EXPECT_EQ(io[2].index, op == MPI_MAXLOC ? 9 : 1);
  }
}

TEST_F(Reduction, LogicalResultsAreZeroOrOne) {
  const ReductionLookup r = find_reduction(MPI_LOR, MPI_INT);
  ASSERT_NE(r.kernel.fn, nullptr);
  int in[3] = {5, 0, 0};
  int io[3] = {-3, 9, 0};
  r.kernel.fn(in, io, 3);
  EXPECT_EQ(io[0], 1);
  EXPECT_EQ(io[1], 1);
  EXPECT_EQ(io[2], 0);
}

// Blocks inside staging buffers may sit at any offset; the kernels must not care.
TEST_F(Reduction, UnalignedBuffersAndZeroCount) {
  const ReductionLookup r = find_reduction(MPI_SUM, MPI_DOUBLE);
  ASSERT_NE(r.kernel.fn, nullptr);
  std::vector<unsigned char> in(1 + 5 * sizeof(double));
  std::vector<unsigned char> io(3 + 5 * sizeof(double));
  for (int i = 0; i < 5; ++i) {
    const double x = i;
    const double y = 10.0 * i;
    std::memcpy(in.data() + 1 + i * sizeof(double), &x, sizeof x);
    std::memcpy(io.data() + 3 + i * sizeof(double), &y, sizeof y);
  }
  r.kernel.fn(in.data() + 1, io.data() + 3, 0);  // nothing to do, nothing touched
  r.kernel.fn(in.data() + 1, io.data() + 3, 5);
  for (int i = 0; i < 5; ++i) {
    double z = 0;
    std::memcpy(&z, io.data() + 3 + i * sizeof(double), sizeof z);
    EXPECT_EQ(z, 11.0 * i);
  }
}

// ---------------------------------------------------------------------------------------
// Refusals
// ---------------------------------------------------------------------------------------

void user_function(void*, void*, int*, MPI_Datatype*) {}

TEST_F(Reduction, RefusesOperationsThatAreNotPredefinedReductions) {
  MPI_Op user = MPI_OP_NULL;
  ASSERT_EQ(MPI_Op_create(&user_function, 1, &user), MPI_SUCCESS);
  expect_refused(find_reduction(user, MPI_INT), "user-defined", "MPI_INT");
  MPI_Op_free(&user);
  expect_refused(find_reduction(MPI_REPLACE, MPI_INT), "MPI_REPLACE", "MPI_INT");
  expect_refused(find_reduction(MPI_NO_OP, MPI_DOUBLE), "MPI_NO_OP", "MPI_DOUBLE");
  expect_refused(find_reduction(MPI_OP_NULL, MPI_INT), "MPI_OP_NULL", "MPI_INT");
}

TEST_F(Reduction, RefusesDatatypesOutsideTheTable) {
  expect_refused(find_reduction(MPI_SUM, MPI_BYTE), "MPI_SUM", "MPI_BYTE");
  expect_refused(find_reduction(MPI_BAND, MPI_DOUBLE), "MPI_BAND", "MPI_DOUBLE");
  expect_refused(find_reduction(MPI_MAX, MPI_C_BOOL), "MPI_MAX", "MPI_C_BOOL");
  expect_refused(find_reduction(MPI_LAND, MPI_INTEGER), "MPI_LAND", "MPI_INTEGER");
  expect_refused(find_reduction(MPI_SUM, MPI_CHAR), "MPI_SUM", "MPI_CHAR");
  expect_refused(find_reduction(MPI_MAXLOC, MPI_INT), "MPI_MAXLOC", "MPI_INT");
  expect_refused(find_reduction(MPI_SUM, MPI_DOUBLE_INT), "MPI_SUM", "MPI_DOUBLE_INT");
  expect_refused(find_reduction(MPI_SUM, MPI_PACKED), "MPI_SUM", "MPI_PACKED");
  expect_refused(find_reduction(MPI_SUM, MPI_DATATYPE_NULL), "MPI_SUM", "MPI_DATATYPE_NULL");
  // Quad precision: MPI libraries disagree on its C representation.
  expect_refused(find_reduction(MPI_SUM, MPI_REAL16), "MPI_SUM", "MPI_REAL16");
  expect_refused(find_reduction(MPI_PROD, MPI_COMPLEX32), "MPI_PROD", "MPI_COMPLEX32");

  MPI_Datatype contiguous = MPI_DATATYPE_NULL;
  ASSERT_EQ(MPI_Type_contiguous(2, MPI_INT, &contiguous), MPI_SUCCESS);
  ASSERT_EQ(MPI_Type_commit(&contiguous), MPI_SUCCESS);
  expect_refused(find_reduction(MPI_SUM, contiguous), "MPI_SUM", "derived datatype");
  char name[] = "int_pair";
  MPI_Type_set_name(contiguous, name);
  expect_refused(find_reduction(MPI_MAX, contiguous), "MPI_MAX", "'int_pair'");
  MPI_Type_free(&contiguous);
}

TEST_F(Reduction, RefusalNamesTheAllowedCategories) {
  const ReductionLookup r = find_reduction(MPI_SUM, MPI_BYTE);
  EXPECT_EQ(r.error,
            "MPI_SUM is not defined for MPI_BYTE (allowed: C/Fortran integer, "
            "floating point, complex)");
}

}  // namespace
}  // namespace overlap::collectives
