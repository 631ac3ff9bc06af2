// The cases ovx-equality and ovx-soak run (see ovx_equality.cpp for what they check):
// every OVX collective against MPI's own on drawn arguments, data, communicators and
// completion calls. Several threads may run cases at once, each with its own Context
// (its own communicators: collectives on one communicator are issued by one thread).
#pragma once

#include <overlap/overlap.h>

#include <mpi.h>

#include <atomic>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace ovx_cases {

using Rng = std::mt19937_64;

inline int g_rank = 0;
inline int g_size = 1;
inline std::uint64_t g_seed = 0;
// The last case started (for the watchdog's message).
inline std::atomic<int> g_phase_case{-1};

// Any MPI or OVX call that fails ends the run: the message says which and why.
void check_rc(int rc, const char* what);

// ---------------------------------------------------------------------------------------
// Datatypes, operations and their data
// ---------------------------------------------------------------------------------------

enum class Kind : std::uint8_t { i8, u8, i16, u16, i32, u32, i64, u64, f32, f64 };
// How a field's values are drawn: uniform integers in [lo, hi] (also for floating-point
// fields: exact arithmetic), uniform reals in [lo, hi), ±2^k for k in [-1, 1] (products
// stay exact), or any bit pattern.
enum class Gen : std::uint8_t { integer, real, pow2, bits };

struct Field {
  Kind kind;
  std::size_t offset;
  Gen gen;
  double lo = 0;
  double hi = 0;
};

struct Combo {
  const char* name;
  MPI_Datatype type;
  MPI_Op op;
  std::size_t extent;
  std::vector<Field> fields;
  double rel_tol = 0;  // per rank: the bound is rel_tol * P; 0 means exact
};

// Handles are run-time values in Open MPI (addresses), hence a function, called after
// MPI_Init_thread. `padded` adds MPI_DOUBLE_INT (12 bytes of data 16 bytes apart).
std::vector<Combo> make_combos(bool padded);

// ---------------------------------------------------------------------------------------
// Cases
// ---------------------------------------------------------------------------------------

enum Coll : int {
  kBarrier,
  kBcast,
  kReduce,
  kAllreduce,
  kAllgather,
  kAlltoall,
  kGather,
  kScatter,
  kReduceScatterBlock,
  kCollectives
};
inline const char* const kCollName[] = {
    "OVX_Ibarrier",  "OVX_Ibcast",  "OVX_Ireduce",  "OVX_Iallreduce",           "OVX_Iallgather",
    "OVX_Ialltoall", "OVX_Igather", "OVX_Iscatter", "OVX_Ireduce_scatter_block"};
inline const char* const kCommName[] = {"MPI_COMM_WORLD", "dup of MPI_COMM_WORLD",
                                        "half of a split"};

// Plain ints, so a case is broadcast as MPI_INT[kCaseInts].
struct Case {
  int index;
  int coll;
  int count;      // elements (per block for the block-wise collectives)
  int root_draw;  // root = root_draw % size of the case's communicator
  int combo;
  int in_place;
  int comm;        // 0 world, 1 dup, 2 half
  int completion;  // 0 MPI_Wait, 1 MPI_Test loop
};
constexpr int kCaseInts = sizeof(Case) / sizeof(int);

struct Context {
  MPI_Comm agree;  // where rank 0's draws are broadcast and verdicts agreed
  int max_total;   // elements of the largest buffer of a case
  const std::vector<Combo>& combos;
  // [0] all ranks (the mixed round's point-to-point goes here too), [1] all ranks (the
  // native MPI_Iallreduce), [2] half of them.
  const std::vector<MPI_Comm>& comms;
  Rng master;  // drawn from at rank 0 only
  int next_index = 0;
  int per_coll[kCollectives] = {};
  int in_place = 0;
  int zero_counts = 0;
  int largest = 0;

  // The next case (drawn at rank 0, broadcast on `agree`), counted in the statistics.
  Case next(int max);
  // Rank 0 draws a small number, everyone gets it.
  int agree_int(std::uint64_t modulus, int offset);
};

// One case at a time, completed by MPI_Wait or by an MPI_Test loop.
bool run_sequential(Context& ctx, int cases);
// Several collectives in flight at once on all three communicators; one MPI_Waitall.
bool run_batch(Context& ctx);
// OVX requests, MPI_Isend/MPI_Irecv and a native MPI_Iallreduce in one completion call.
bool run_mixed(Context& ctx);

// "PASS: N cases in S s ..." and what the cases covered.
void print_summary(const Context& ctx, const char* policy, double seconds);

}  // namespace ovx_cases
