#include "ovx_cases.hpp"

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdio>
#include <cstring>

namespace ovx_cases {

void check_rc(int rc, const char* what) {
  if (rc == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING] = {};
  int len = 0;
  MPI_Error_string(rc, text, &len);
  std::fprintf(stderr, "rank %d: %s failed: %s (seed %llu)\n", g_rank, what, text,
               static_cast<unsigned long long>(g_seed));
  MPI_Abort(MPI_COMM_WORLD, 2);
}

namespace {

std::size_t kind_size(Kind k) {
  switch (k) {
    case Kind::i8:
    case Kind::u8:
      return 1;
    case Kind::i16:
    case Kind::u16:
      return 2;
    case Kind::i32:
    case Kind::u32:
    case Kind::f32:
      return 4;
    default:
      return 8;
  }
}

bool is_float(Kind k) { return k == Kind::f32 || k == Kind::f64; }

}  // namespace

// Handles are run-time values in Open MPI (addresses), hence a function, called after
// MPI_Init_thread. Every pair type here is gap-free (size == extent); `padded` adds
// MPI_DOUBLE_INT, whose elements are 12 bytes of data 16 bytes apart.
std::vector<Combo> make_combos(bool padded) {
  // clang-format off
  const Field f64_int{Kind::f64, 0, Gen::integer, -1e6, 1e6};
  const Field f64_pow2{Kind::f64, 0, Gen::pow2};
  const double two40 = 1099511627776.0;
  std::vector<Combo> combos = {
      {"MPI_INT/MPI_SUM", MPI_INT, MPI_SUM, 4, {{Kind::i32, 0, Gen::integer, -1e6, 1e6}}},
      {"MPI_INT/MPI_PROD", MPI_INT, MPI_PROD, 4, {{Kind::i32, 0, Gen::integer, -3, 3}}},
      {"MPI_INT/MPI_MAX", MPI_INT, MPI_MAX, 4, {{Kind::i32, 0, Gen::bits}}},
      {"MPI_INT/MPI_MIN", MPI_INT, MPI_MIN, 4, {{Kind::i32, 0, Gen::bits}}},
      {"MPI_INT/MPI_LAND", MPI_INT, MPI_LAND, 4, {{Kind::i32, 0, Gen::integer, 0, 6}}},
      {"MPI_INT/MPI_LXOR", MPI_INT, MPI_LXOR, 4, {{Kind::i32, 0, Gen::integer, -1, 1}}},
      {"MPI_UNSIGNED/MPI_BAND", MPI_UNSIGNED, MPI_BAND, 4, {{Kind::u32, 0, Gen::bits}}},
      {"MPI_UNSIGNED/MPI_BOR", MPI_UNSIGNED, MPI_BOR, 4, {{Kind::u32, 0, Gen::bits}}},
      {"MPI_UINT64_T/MPI_SUM", MPI_UINT64_T, MPI_SUM, 8, {{Kind::u64, 0, Gen::bits}}},
      {"MPI_LONG_LONG/MPI_SUM", MPI_LONG_LONG, MPI_SUM, 8,
       {{Kind::i64, 0, Gen::integer, -two40, two40}}},
      // No overflow (Open MPI saturates 8/16-bit sums), no value >= 2^15 (MPICH 4.0.2
      // compares unsigned types as signed).
      {"MPI_SHORT/MPI_SUM", MPI_SHORT, MPI_SUM, 2, {{Kind::i16, 0, Gen::integer, -1000, 1000}}},
      {"MPI_UNSIGNED_SHORT/MPI_MAX", MPI_UNSIGNED_SHORT, MPI_MAX, 2,
       {{Kind::u16, 0, Gen::integer, 0, 32767}}},
      {"MPI_BYTE/MPI_BXOR", MPI_BYTE, MPI_BXOR, 1, {{Kind::u8, 0, Gen::bits}}},
      {"MPI_C_BOOL/MPI_LOR", MPI_C_BOOL, MPI_LOR, 1, {{Kind::u8, 0, Gen::integer, 0, 1}}},
      {"MPI_FLOAT/MPI_SUM", MPI_FLOAT, MPI_SUM, 4, {{Kind::f32, 0, Gen::integer, -1000, 1000}}},
      {"MPI_DOUBLE/MPI_SUM", MPI_DOUBLE, MPI_SUM, 8, {f64_int}},
      {"MPI_DOUBLE/MPI_PROD", MPI_DOUBLE, MPI_PROD, 8, {f64_pow2}},
      {"MPI_DOUBLE/MPI_MIN", MPI_DOUBLE, MPI_MIN, 8, {{Kind::f64, 0, Gen::real, -1e3, 1e3}}},
      {"MPI_DOUBLE/MPI_SUM (arbitrary)", MPI_DOUBLE, MPI_SUM, 8,
       {{Kind::f64, 0, Gen::real, 1, 2}}, 1e-12},
      {"MPI_C_DOUBLE_COMPLEX/MPI_SUM", MPI_C_DOUBLE_COMPLEX, MPI_SUM, 16,
       {f64_int, {Kind::f64, 8, Gen::integer, -1e6, 1e6}}},
      {"MPI_C_DOUBLE_COMPLEX/MPI_PROD", MPI_C_DOUBLE_COMPLEX, MPI_PROD, 16,
       {f64_pow2, {Kind::f64, 8, Gen::pow2}}},
      {"MPI_FLOAT_INT/MPI_MAXLOC", MPI_FLOAT_INT, MPI_MAXLOC, 8,
       {{Kind::f32, 0, Gen::integer, 0, 3}, {Kind::i32, 4, Gen::integer, 0, 50}}},
      {"MPI_2INT/MPI_MINLOC", MPI_2INT, MPI_MINLOC, 8,
       {{Kind::i32, 0, Gen::integer, 0, 3}, {Kind::i32, 4, Gen::integer, 0, 50}}},
  };
  if (padded) {
    combos.push_back({"MPI_DOUBLE_INT/MPI_MAXLOC", MPI_DOUBLE_INT, MPI_MAXLOC, 16,
                      {{Kind::f64, 0, Gen::integer, 0, 3}, {Kind::i32, 8, Gen::integer, 0, 50}}});
  }
  // clang-format on
  return combos;
}

namespace {

void store(Kind k, unsigned char* p, long double v, std::uint64_t bits) {
  switch (k) {
    case Kind::f32: {
      const float f = static_cast<float>(v);
      std::memcpy(p, &f, 4);
      return;
    }
    case Kind::f64: {
      const double d = static_cast<double>(v);
      std::memcpy(p, &d, 8);
      return;
    }
    default:
      break;
  }
  // Integers: two's complement, little or big end alike, through a 64-bit pattern.
  const std::uint64_t u = bits;
  switch (kind_size(k)) {
    case 1: {
      const auto x = static_cast<std::uint8_t>(u);
      std::memcpy(p, &x, 1);
      return;
    }
    case 2: {
      const auto x = static_cast<std::uint16_t>(u);
      std::memcpy(p, &x, 2);
      return;
    }
    case 4: {
      const auto x = static_cast<std::uint32_t>(u);
      std::memcpy(p, &x, 4);
      return;
    }
    default:
      std::memcpy(p, &u, 8);
      return;
  }
}

void draw_field(const Field& f, unsigned char* p, Rng& rng) {
  std::uint64_t bits = rng();
  long double v = 0;
  switch (f.gen) {
    case Gen::integer: {
      const auto lo = static_cast<std::int64_t>(f.lo);
      const auto hi = static_cast<std::int64_t>(f.hi);
      const std::int64_t x = std::uniform_int_distribution<std::int64_t>(lo, hi)(rng);
      v = static_cast<long double>(x);
      bits = static_cast<std::uint64_t>(x);
      break;
    }
    case Gen::real:
      v = std::uniform_real_distribution<double>(f.lo, f.hi)(rng);
      break;
    case Gen::pow2: {
      const int e = static_cast<int>(rng() % 3) - 1;
      v = (rng() % 2 == 0 ? 1.0L : -1.0L) * (e < 0 ? 0.5L : e == 0 ? 1.0L : 2.0L);
      break;
    }
    case Gen::bits:
      v = static_cast<long double>(bits);
      break;
  }
  store(f.kind, p, v, bits);
}

// Every element gets valid values in every field; padding bytes stay zero.
void fill(const Combo& c, std::vector<unsigned char>& buf, Rng& rng) {
  std::fill(buf.begin(), buf.end(), static_cast<unsigned char>(0));
  for (std::size_t at = 0; at + c.extent <= buf.size(); at += c.extent) {
    for (const Field& f : c.fields) draw_field(f, buf.data() + at + f.offset, rng);
  }
}

long double load(Kind k, const unsigned char* p) {
  switch (k) {
    case Kind::i8: {
      std::int8_t x;
      std::memcpy(&x, p, 1);
      return x;
    }
    case Kind::u8: {
      std::uint8_t x;
      std::memcpy(&x, p, 1);
      return x;
    }
    case Kind::i16: {
      std::int16_t x;
      std::memcpy(&x, p, 2);
      return x;
    }
    case Kind::u16: {
      std::uint16_t x;
      std::memcpy(&x, p, 2);
      return x;
    }
    case Kind::i32: {
      std::int32_t x;
      std::memcpy(&x, p, 4);
      return x;
    }
    case Kind::u32: {
      std::uint32_t x;
      std::memcpy(&x, p, 4);
      return x;
    }
    case Kind::i64: {
      std::int64_t x;
      std::memcpy(&x, p, 8);
      return static_cast<long double>(x);
    }
    case Kind::u64: {
      std::uint64_t x;
      std::memcpy(&x, p, 8);
      return static_cast<long double>(x);
    }
    case Kind::f32: {
      float x;
      std::memcpy(&x, p, 4);
      return x;
    }
    case Kind::f64: {
      double x;
      std::memcpy(&x, p, 8);
      return x;
    }
  }
  return 0;
}

// "" when the first `n` elements agree (data fields only, never padding).
std::string compare(const Combo& c, const unsigned char* got, const unsigned char* want,
                    std::size_t n, int comm_size) {
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t fi = 0; fi < c.fields.size(); ++fi) {
      const Field& f = c.fields[fi];
      const unsigned char* g = got + i * c.extent + f.offset;
      const unsigned char* w = want + i * c.extent + f.offset;
      bool same = std::memcmp(g, w, kind_size(f.kind)) == 0;
      const long double gv = load(f.kind, g);
      const long double wv = load(f.kind, w);
      if (!same && is_float(f.kind)) {
        const long double tol = c.rel_tol * comm_size;
        same = gv == wv || (tol > 0 && std::abs(gv - wv) <= tol * std::abs(wv));
      }
      if (!same) {
        char text[200];
        std::snprintf(text, sizeof text,
                      "element %zu field %zu: OVX gives %.17Lg, MPI gives %.17Lg", i, fi, gv, wv);
        return text;
      }
    }
  }
  return {};
}

int draw_count(Rng& rng, int coll, int max_total) {
  const auto r = rng() % 100;
  int n = 0;
  if (r < 10)
    n = 0;
  else if (r < 50)
    n = 1 + static_cast<int>(rng() % 16);
  else if (r < 80)
    n = 17 + static_cast<int>(rng() % 2000);
  else if (r < 95)
    n = 2017 + static_cast<int>(rng() % 20000);
  else
    n = 20000 + static_cast<int>(rng() % 80001);
  // Block-wise collectives move P blocks; keep the whole buffer within max_total.
  const bool blocks = coll == kAllgather || coll == kAlltoall || coll == kGather ||
                      coll == kScatter || coll == kReduceScatterBlock;
  return std::min(n, blocks ? max_total / g_size : max_total);
}

// Rank 0 draws, everyone receives: all ranks run the same case.
Case agree_case(MPI_Comm agree, Rng& master, int index, int n_combos, int max_total) {
  Case c{};
  if (g_rank == 0) {
    c.index = index;
    c.coll = static_cast<int>(master() % kCollectives);
    c.count = draw_count(master, c.coll, max_total);
    c.root_draw = static_cast<int>(master() % 1000003);
    c.combo = static_cast<int>(master() % static_cast<std::uint64_t>(n_combos));
    c.in_place = master() % 3 == 0 ? 1 : 0;
    c.comm = static_cast<int>(master() % 3);
    c.completion = static_cast<int>(master() % 2);
  }
  check_rc(MPI_Bcast(&c, kCaseInts, MPI_INT, 0, agree), "MPI_Bcast of a case");
  return c;
}

// What one rank holds for one case: buffer sizes, whether MPI_IN_PLACE applies here, and
// how many elements of the receive buffer MPI defines afterwards.
struct Shape {
  std::size_t send_elems = 0;
  std::size_t recv_elems = 0;
  std::size_t result_elems = 0;
  bool in_place = false;
};

Shape shape_of(const Case& c, int size, int rank, int root) {
  const std::size_t n = static_cast<std::size_t>(c.count);
  const std::size_t all = n * static_cast<std::size_t>(size);
  const bool is_root = rank == root;
  const bool ip = c.in_place != 0;
  switch (c.coll) {
    case kBcast:
      return {0, n, n, false};
    case kReduce:
      return {n, n, is_root ? n : 0, ip && is_root};
    case kAllreduce:
      return {n, n, n, ip};
    case kAllgather:
      return {n, all, all, ip};
    case kAlltoall:
      return {all, all, all, ip};
    case kGather:  // no receive buffer at all off the root: OVX must not touch it
      return {n, is_root ? all : 0, is_root ? all : 0, ip && is_root};
    case kScatter:
      return {is_root ? all : 0, n, ip && is_root ? 0 : n, ip && is_root};
    case kReduceScatterBlock:
      return {all, ip ? all : n, n, ip};
    default:
      return {};
  }
}

struct Buffers {
  std::vector<unsigned char> send;
  std::vector<unsigned char> recv;
};

// One call with identical arguments, OVX nonblocking (req != nullptr) or MPI blocking.
int call(const Case& c, const Combo& k, const Shape& s, Buffers& b, int root, MPI_Comm comm,
         MPI_Request* req) {
  const bool ovx = req != nullptr;
  void* sb = b.send.data();
  void* rb = b.recv.data();
  // MPI_IN_PLACE replaces the send buffer everywhere except at MPI_Scatter's root.
  const void* sp = s.in_place && c.coll != kScatter ? MPI_IN_PLACE : sb;
  void* rp = s.in_place && c.coll == kScatter ? MPI_IN_PLACE : rb;
  const int n = c.count;
  const MPI_Datatype t = k.type;
  const MPI_Op op = k.op;
  switch (c.coll) {
    case kBarrier:
      return ovx ? OVX_Ibarrier(comm, req) : MPI_Barrier(comm);
    case kBcast:
      return ovx ? OVX_Ibcast(rb, n, t, root, comm, req) : MPI_Bcast(rb, n, t, root, comm);
    case kReduce: {
      if (ovx) return OVX_Ireduce(sp, rb, n, t, op, root, comm, req);
      // MPICH 4.0.2 and 4.1.1 crash in MPI_Reduce with MPI_IN_PLACE at a nonzero root
      // (pmodels/mpich#6540). The reference gets the same input as an explicit copy,
      // which MPI defines to give the same result.
      const std::vector<unsigned char> own = b.recv;
      return MPI_Reduce(s.in_place ? own.data() : sp, rb, n, t, op, root, comm);
    }
    case kAllreduce:
      return ovx ? OVX_Iallreduce(sp, rb, n, t, op, comm, req)
                 : MPI_Allreduce(sp, rb, n, t, op, comm);
    case kAllgather:
      return ovx ? OVX_Iallgather(sp, n, t, rb, n, t, comm, req)
                 : MPI_Allgather(sp, n, t, rb, n, t, comm);
    case kAlltoall:
      return ovx ? OVX_Ialltoall(sp, n, t, rb, n, t, comm, req)
                 : MPI_Alltoall(sp, n, t, rb, n, t, comm);
    case kGather:
      return ovx ? OVX_Igather(sp, n, t, rb, n, t, root, comm, req)
                 : MPI_Gather(sp, n, t, rb, n, t, root, comm);
    case kScatter:
      return ovx ? OVX_Iscatter(sb, n, t, rp, n, t, root, comm, req)
                 : MPI_Scatter(sb, n, t, rp, n, t, root, comm);
    case kReduceScatterBlock:
      return ovx ? OVX_Ireduce_scatter_block(sp, rb, n, t, op, comm, req)
                 : MPI_Reduce_scatter_block(sp, rb, n, t, op, comm);
    default:
      return MPI_ERR_OTHER;
  }
}

// One case in flight: its buffers before, under OVX, and under MPI.
struct Running {
  Case c;
  const Combo* combo = nullptr;
  MPI_Comm comm = MPI_COMM_NULL;
  int root = 0;
  Shape shape;
  Buffers before;
  Buffers ovx;
  MPI_Request req = MPI_REQUEST_NULL;
};

bool is_reduction(int coll) {
  return coll == kReduce || coll == kAllreduce || coll == kReduceScatterBlock;
}

bool has_root(int coll) {
  return coll == kBcast || coll == kReduce || coll == kGather || coll == kScatter;
}

// The case as a reader wants it in a failure message.
std::string describe(const Running& r, int comm_size, const char* phase) {
  const std::string combo = r.combo->name;
  const std::string what = is_reduction(r.c.coll) ? combo : combo.substr(0, combo.find('/'));
  std::string text = std::string(phase) + " case " + std::to_string(r.c.index) + ": " +
                     kCollName[r.c.coll] + " count=" + std::to_string(r.c.count) + " " + what;
  if (has_root(r.c.coll)) text += " root=" + std::to_string(r.root);
  if (r.shape.in_place) text += " MPI_IN_PLACE";
  text += std::string(" on ") + kCommName[r.c.comm] + " (" + std::to_string(comm_size) + " ranks)";
  if (std::string(phase) == "sequential") {
    text += r.c.completion == 0 ? ", completed by MPI_Wait" : ", completed by an MPI_Test loop";
  }
  return text;
}

// Each rank's data for a case: a function of (seed, case, rank) only.
std::uint64_t data_seed(int case_index) {
  std::seed_seq seq{static_cast<std::uint32_t>(g_seed), static_cast<std::uint32_t>(g_seed >> 32),
                    static_cast<std::uint32_t>(case_index), static_cast<std::uint32_t>(g_rank)};
  std::uint32_t parts[2];
  seq.generate(parts, parts + 2);
  return (static_cast<std::uint64_t>(parts[0]) << 32) | parts[1];
}

void start(Running& r, const Case& c, const std::vector<Combo>& combos,
           const std::vector<MPI_Comm>& comms) {
  r.c = c;
  r.combo = &combos[static_cast<std::size_t>(c.combo)];
  r.comm = comms[static_cast<std::size_t>(c.comm)];
  int size = 1;
  int rank = 0;
  MPI_Comm_size(r.comm, &size);
  MPI_Comm_rank(r.comm, &rank);
  r.root = c.root_draw % size;
  r.shape = shape_of(c, size, rank, r.root);
  Rng rng(data_seed(c.index));
  r.before.send.resize(r.shape.send_elems * r.combo->extent);
  r.before.recv.resize(r.shape.recv_elems * r.combo->extent);
  fill(*r.combo, r.before.send, rng);
  fill(*r.combo, r.before.recv, rng);
  r.ovx = r.before;
  check_rc(call(c, *r.combo, r.shape, r.ovx, r.root, r.comm, &r.req), kCollName[c.coll]);
}

// After the OVX request completed: MPI's own collective on the saved copy, then the
// comparison. Returns "" or what differs.
// A hash of the data fields (not the padding) of the first n elements.
std::uint64_t field_hash(const Combo& c, const unsigned char* data, std::size_t n) {
  std::uint64_t h = 1469598103934665603ULL;
  for (std::size_t i = 0; i < n; ++i) {
    for (const Field& f : c.fields) {
      const unsigned char* p = data + i * c.extent + f.offset;
      for (std::size_t b = 0; b < kind_size(f.kind); ++b) h = (h ^ p[b]) * 1099511628211ULL;
    }
  }
  return h;
}

std::string finish(Running& r, const char* phase) {
  Buffers mpi = r.before;
  check_rc(call(r.c, *r.combo, r.shape, mpi, r.root, r.comm, nullptr), "the MPI reference");
  int size = 1;
  MPI_Comm_size(r.comm, &size);
  std::string diff =
      compare(*r.combo, r.ovx.recv.data(), mpi.recv.data(), r.shape.result_elems, size);
  if (diff.empty() && r.ovx.send != r.before.send) diff = "the send buffer was modified";
  // Stricter than MPI's own (which may round differently on different ranks): every rank
  // of an allreduce holds the same bits, also for the inexact sums.
  if (r.c.coll == kAllreduce) {
    const std::uint64_t h = field_hash(*r.combo, r.ovx.recv.data(), r.shape.result_elems);
    std::uint64_t lo = h, hi = h;
    check_rc(MPI_Allreduce(&h, &lo, 1, MPI_UINT64_T, MPI_MIN, r.comm), "MPI_Allreduce of hashes");
    check_rc(MPI_Allreduce(&h, &hi, 1, MPI_UINT64_T, MPI_MAX, r.comm), "MPI_Allreduce of hashes");
    if (diff.empty() && lo != hi) diff = "the ranks' results differ in their bits";
  }
  if (diff.empty()) return {};
  return describe(r, size, phase) + ": " + diff;
}

// Everyone learns whether anyone failed; the failing rank has printed why.
bool all_ok(MPI_Comm agree, const std::string& diff) {
  int ok = diff.empty() ? 1 : 0;
  if (!diff.empty()) {
    std::fprintf(stderr, "rank %d: MISMATCH %s (seed %llu)\n", g_rank, diff.c_str(),
                 static_cast<unsigned long long>(g_seed));
  }
  check_rc(MPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_MIN, agree),
           "MPI_Allreduce of the verdict");
  return ok == 1;
}

// Some computation between tests, so the loop is what an application does.
void compute_a_little() {
  volatile double x = 1.0;
  for (int i = 0; i < 2000; ++i) x = x * 1.0000001 + 1e-9;
}

}  // namespace

Case Context::next(int max) {
  const Case c = agree_case(agree, master, next_index++, static_cast<int>(combos.size()), max);
  ++per_coll[c.coll];
  in_place += c.in_place != 0 && c.coll != kBarrier && c.coll != kBcast ? 1 : 0;
  zero_counts += c.count == 0 && c.coll != kBarrier ? 1 : 0;
  largest = std::max(largest, c.count);
  return c;
}

int Context::agree_int(std::uint64_t modulus, int offset) {
  int v = g_rank == 0 ? offset + static_cast<int>(master() % modulus) : 0;
  check_rc(MPI_Bcast(&v, 1, MPI_INT, 0, agree), "MPI_Bcast of a draw");
  return v;
}

// One case at a time, completed by MPI_Wait or by an MPI_Test loop.
bool run_sequential(Context& ctx, int cases) {
  for (int i = 0; i < cases; ++i) {
    const Case c = ctx.next(ctx.max_total);
    g_phase_case = c.index;
    Running r;
    start(r, c, ctx.combos, ctx.comms);
    if (c.completion == 0) {
      check_rc(MPI_Wait(&r.req, MPI_STATUS_IGNORE), "MPI_Wait on an OVX request");
    } else {
      int done = 0;
      while (done == 0) {
        check_rc(MPI_Test(&r.req, &done, MPI_STATUS_IGNORE), "MPI_Test on an OVX request");
        if (done == 0) compute_a_little();
      }
    }
    std::string diff = finish(r, "sequential");
    if (diff.empty() && r.req != MPI_REQUEST_NULL)
      diff = "the completed request is not MPI_REQUEST_NULL";
    if (!all_ok(ctx.agree, diff)) return false;
  }
  return true;
}

// (a) Several collectives in flight at once on world, dup and halves; one MPI_Waitall.
bool run_batch(Context& ctx) {
  const int k = ctx.agree_int(9, 4);
  std::vector<Case> cases;
  for (int j = 0; j < k; ++j) cases.push_back(ctx.next(std::min(ctx.max_total, 20000)));
  g_phase_case = cases.front().index;
  std::vector<Running> runs(static_cast<std::size_t>(k));  // never resized: buffers stay put
  std::vector<MPI_Request> reqs;
  for (int j = 0; j < k; ++j) {
    cases[static_cast<std::size_t>(j)].completion = 0;
    start(runs[static_cast<std::size_t>(j)], cases[static_cast<std::size_t>(j)], ctx.combos,
          ctx.comms);
    reqs.push_back(runs[static_cast<std::size_t>(j)].req);
  }
  check_rc(MPI_Waitall(k, reqs.data(), MPI_STATUSES_IGNORE), "MPI_Waitall on OVX requests");
  // Every rank runs every reference (they are collectives), then reports the first diff.
  std::string first;
  for (Running& r : runs) {
    const std::string diff = finish(r, "in-flight batch");
    if (first.empty()) first = diff;
  }
  return all_ok(ctx.agree, first);
}

// Payloads the mixed phase can check without a reference.
int p2p_value(int sender, int i) { return (sender * 7919 + i) % 1000003; }
int native_value(int rank, int i) { return ((rank + 1) * (i + 1)) % 1000; }

std::string check_plain_mpi(const std::vector<int>& got_p2p, const MPI_Status& st, int left,
                            const std::vector<int>& native) {
  int got = -1;
  MPI_Get_count(&st, MPI_INT, &got);
  if (got != static_cast<int>(got_p2p.size()))
    return "MPI_Irecv status counts " + std::to_string(got);
  for (std::size_t i = 0; i < got_p2p.size(); ++i) {
    if (got_p2p[i] != p2p_value(left, static_cast<int>(i))) {
      return "MPI_Irecv element " + std::to_string(i) + " is " + std::to_string(got_p2p[i]);
    }
  }
  for (std::size_t i = 0; i < native.size(); ++i) {
    long long want = 0;
    for (int p = 0; p < g_size; ++p) want += native_value(p, static_cast<int>(i));
    if (native[i] != want) return "native MPI_Iallreduce element " + std::to_string(i) + " wrong";
  }
  return {};
}

// (b) OVX requests, MPI_Isend/MPI_Irecv and a native MPI_Iallreduce in one completion
// call: MPI_Waitall, or an MPI_Testall loop.
bool run_mixed(Context& ctx) {
  const int m = ctx.agree_int(5000, 0);
  const int m_native = ctx.agree_int(5000, 0);
  const bool testall = ctx.agree_int(2, 0) == 1;
  Case c1 = ctx.next(20000);
  Case c2 = ctx.next(20000);
  c1.comm = 0;  // world: next to the user's own point-to-point traffic
  c2.comm = 1;  // dup: next to the native MPI_Iallreduce
  c1.completion = c2.completion = 0;
  g_phase_case = c1.index;
  const int right = (g_rank + 1) % g_size;
  const int left = (g_rank + g_size - 1) % g_size;
  std::vector<int> out(static_cast<std::size_t>(m));
  std::vector<int> in(static_cast<std::size_t>(m), -1);
  std::vector<int> nat_in(static_cast<std::size_t>(m_native));
  std::vector<int> nat_out(static_cast<std::size_t>(m_native), -1);
  for (int i = 0; i < m; ++i) out[static_cast<std::size_t>(i)] = p2p_value(g_rank, i);
  for (int i = 0; i < m_native; ++i) nat_in[static_cast<std::size_t>(i)] = native_value(g_rank, i);

  Running r1;
  Running r2;
  MPI_Request reqs[5];
  start(r1, c1, ctx.combos, ctx.comms);
  reqs[0] = r1.req;
  check_rc(MPI_Irecv(in.data(), m, MPI_INT, left, 4242, ctx.comms[0], &reqs[1]), "MPI_Irecv");
  check_rc(MPI_Iallreduce(nat_in.data(), nat_out.data(), m_native, MPI_INT, MPI_SUM, ctx.comms[1],
                          &reqs[2]),
           "MPI_Iallreduce");
  check_rc(MPI_Isend(out.data(), m, MPI_INT, right, 4242, ctx.comms[0], &reqs[3]), "MPI_Isend");
  start(r2, c2, ctx.combos, ctx.comms);
  reqs[4] = r2.req;
  MPI_Status st[5];
  if (testall) {
    int done = 0;
    while (done == 0) {
      check_rc(MPI_Testall(5, reqs, &done, st), "MPI_Testall on mixed requests");
      if (done == 0) compute_a_little();
    }
  } else {
    check_rc(MPI_Waitall(5, reqs, st), "MPI_Waitall on mixed requests");
  }
  std::string diff = finish(r1, testall ? "mixed (MPI_Testall)" : "mixed (MPI_Waitall)");
  const std::string diff2 = finish(r2, testall ? "mixed (MPI_Testall)" : "mixed (MPI_Waitall)");
  if (diff.empty()) diff = diff2;
  if (diff.empty()) diff = check_plain_mpi(in, st[1], left, nat_out);
  return all_ok(ctx.agree, diff);
}

void print_summary(const Context& ctx, const char* policy, double seconds) {
  std::printf("PASS: %d cases in %.1f s with %d ranks, policy %s, seed %llu\n", ctx.next_index,
              seconds, g_size, policy, static_cast<unsigned long long>(g_seed));
  std::printf("  per collective:");
  for (int c = 0; c < kCollectives; ++c) std::printf(" %s %d", kCollName[c] + 5, ctx.per_coll[c]);
  std::printf("\n  in place %d, count 0: %d, largest count %d\n", ctx.in_place, ctx.zero_counts,
              ctx.largest);
}

}  // namespace ovx_cases
