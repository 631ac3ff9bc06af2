// ovx-equality: every OVX_* collective gives what MPI's own collective gives.
//
//   mpiexec -n P ovx-equality caller|shared|dedicated [--seed S] [--cases N] [--timeout SEC]
//                             [--max-count N] [--keep-engine] [--padded] [--expect OP=ALG]...
//                             [--calibrate measure|skewed]
//
// Rank 0 draws each case (collective, count including 0 and up to 100k elements, root,
// datatype/operation, in-place or not, communicator, how to complete) from one seed and
// broadcasts it, so all ranks agree; each rank's data come from (seed, case, rank), so a
// failure is reproduced by rerunning with the printed seed. Each case runs the OVX
// collective and then MPI's blocking one on identical copies of the buffers, and compares
// what MPI defines: integer results bit for bit; floating-point data are small integers or
// powers of two, so every reduction order gives the exact same result, except in the
// "arbitrary double" cases, compared within a relative 1e-12 * P (values in [1, 2), so
// no cancellation); every rank of an allreduce must hold the same bits even there (MPI
// does not promise that; liboverlap does). Data avoid ranges where MPI libraries are known
// to be wrong (unsigned MAX/MIN above 2^(n-1), overflowing 8/16-bit sums; see
// reduction_test.cpp), since there MPI, not OVX, would be the one to doubt; for the same
// reason MPI's reference for an in-place MPI_Reduce gets its input as a copy (MPICH 4.0.2
// crashes otherwise).
//
// Besides one case at a time (completed by MPI_Wait or an MPI_Test loop), it runs
//  (a) batches of OVX collectives in flight at once on MPI_COMM_WORLD, a dup and a split
//      into halves, completed by a single MPI_Waitall;
//  (b) OVX requests mixed with MPI_Isend/MPI_Irecv pairs and a native MPI_Iallreduce in
//      one MPI_Waitall (or an MPI_Testall loop).
// --expect OP=ALG (run with OVERLAP_ALGORITHMS forcing ALG): OVX_Algorithm must name ALG for
// OP at 100000 eight-byte elements on P ranks, so a forced run cannot pass by running the
// model's choice. --calibrate calls OVX_Calibrate first: `measure` measures each pair's link;
// `skewed` tells each rank a different network (rank r: latency 1 + 50 r us, bandwidth
// 10 / (1 + r) GB/s, a latency of 10 KB on rank 0 and 377 KB on rank 3), which without
// the agreement would make ranks choose different algorithms. Exit status 0 when everything
// matched; 1 with a message naming the case on the first mismatch; MPI_Abort (nonzero) when a call
// fails or nothing completes within --timeout.
#include <overlap/overlap.h>

#include <mpi.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <climits>
#include <cmath>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <random>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "ovx_cases.hpp"
#include "watchdog.hpp"

namespace {

using namespace ovx_cases;

struct Options {
  OVX_Progress policy = OVX_PROGRESS_DEFAULT;
  const char* policy_name = "";
  std::uint64_t seed = 0;
  bool seed_given = false;
  int cases = 0;  // 0: chosen from P
  int timeout_s = 100;
  int max_total = 100000;
  bool keep_engine = false;  // leave the engine's shutdown to MPI_Finalize
  bool padded = false;       // also MPI_DOUBLE_INT, a pair type with a gap
  std::vector<std::pair<std::string, std::string>> expect;  // OP, the algorithm OVX_Algorithm names
  std::string calibrate;                                    // "", "measure" or "skewed"
};

// ---------------------------------------------------------------------------------------
// Driver
// ---------------------------------------------------------------------------------------

bool parse_int(const char* text, long long lo, long long hi, long long& out) {
  char* end = nullptr;
  out = std::strtoll(text, &end, 10);
  return end != text && *end == '\0' && out >= lo && out <= hi;
}

bool parse(int argc, char** argv, Options& o) {
  if (argc < 2) return false;
  const std::string policy = argv[1];
  if (policy == "caller") {
    o.policy = OVX_PROGRESS_CALLER;
  } else if (policy == "shared") {
    o.policy = OVX_PROGRESS_SHARED;
  } else if (policy == "dedicated") {
    o.policy = OVX_PROGRESS_DEDICATED;
  } else {
    return false;
  }
  o.policy_name = argv[1];
  for (int i = 2; i < argc; ++i) {
    const std::string opt = argv[i];
    long long v = 0;
    if (opt == "--keep-engine" || opt == "--padded") {
      (opt == "--padded" ? o.padded : o.keep_engine) = true;
      continue;
    }
    if (i + 1 >= argc) return false;
    const char* value = argv[++i];
    if (opt == "--seed" && parse_int(value, 0, LLONG_MAX, v)) {
      o.seed = static_cast<std::uint64_t>(v);
      o.seed_given = true;
    } else if (opt == "--cases" && parse_int(value, 0, 1000000, v)) {
      o.cases = static_cast<int>(v);
    } else if (opt == "--timeout" && parse_int(value, 1, 86400, v)) {
      o.timeout_s = static_cast<int>(v);
    } else if (opt == "--max-count" && parse_int(value, 0, 10000000, v)) {
      o.max_total = static_cast<int>(v);
    } else if (opt == "--calibrate" &&
               (std::strcmp(value, "measure") == 0 || std::strcmp(value, "skewed") == 0)) {
      o.calibrate = value;
    } else if (const char* eq = std::strchr(value, '='); opt == "--expect" && eq != nullptr) {
      o.expect.emplace_back(std::string(value, eq), std::string(eq + 1));
    } else {
      return false;
    }
  }
  return true;
}

void calibrate(const std::string& how) {
  if (how == "skewed") {
    const std::string model = "latency=" + std::to_string(1 + 50 * g_rank) +
                              "us,bandwidth=" + std::to_string(10.0 / (1 + g_rank)) + "GB/s";
    setenv("OVERLAP_COST_MODEL", model.c_str(), 1);
  }
  check_rc(OVX_Calibrate(), "OVX_Calibrate");
  double latency = 0, bandwidth = 0;
  const char* source = nullptr;
  check_rc(OVX_Get_cost_model(&latency, &bandwidth, &source), "OVX_Get_cost_model");
  if (g_rank == 0)
    std::printf("ovx-equality: cost model %s: latency %.2f us, bandwidth %.3f GB/s\n", source,
                latency * 1e6, bandwidth / 1e9);
}

std::vector<MPI_Comm> make_comms() {
  std::vector<MPI_Comm> comms(3, MPI_COMM_NULL);
  comms[0] = MPI_COMM_WORLD;
  check_rc(MPI_Comm_dup(MPI_COMM_WORLD, &comms[1]), "MPI_Comm_dup");
  // Two halves (for P = 1 a single one); each runs its cases at the same time as the other.
  check_rc(MPI_Comm_split(MPI_COMM_WORLD, g_rank * 2 / g_size, g_rank, &comms[2]),
           "MPI_Comm_split");
  return comms;
}

bool run_all(const Options& o, Context& ctx) {
  // MPICH busy-polls: with more ranks than cores every step waits for a time slice,
  // so fewer cases for large P keep a run well under 20 s.
  const int cases = o.cases > 0 ? o.cases : g_size <= 2 ? 300 : g_size <= 4 ? 100 : 40;
  if (!run_sequential(ctx, cases)) return false;
  const int rounds = std::max(2, cases / 20);
  for (int round = 0; round < rounds; ++round) {
    if (!run_batch(ctx) || !run_mixed(ctx)) return false;
  }
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  int provided = MPI_THREAD_SINGLE;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &g_size);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);  // dup and split inherit it
  Options o;
  if (!parse(argc, argv, o)) {
    if (g_rank == 0) {
      std::fprintf(stderr,
                   "usage: ovx-equality caller|shared|dedicated [--seed S] [--cases N] "
                   "[--timeout SEC] [--max-count N] [--keep-engine] [--padded] "
                   "[--expect OP=ALG]...\n");
    }
    MPI_Finalize();
    return 2;
  }
  if (provided < MPI_THREAD_MULTIPLE) {
    if (g_rank == 0) std::fprintf(stderr, "FAIL: MPI_THREAD_MULTIPLE not provided\n");
    MPI_Finalize();
    return 1;
  }
  if (g_rank == 0)
    g_seed = o.seed_given ? o.seed : (std::random_device{}() * 0x9e3779b97f4a7c15ULL) >> 1;
  MPI_Bcast(&g_seed, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
  if (g_rank == 0) {
    std::printf("ovx-equality: %d ranks, policy %s, seed %llu (rerun with --seed %llu)\n", g_size,
                o.policy_name, static_cast<unsigned long long>(g_seed),
                static_cast<unsigned long long>(g_seed));
    std::fflush(stdout);
  }
  const auto t0 = std::chrono::steady_clock::now();
  bool ok = false;
  {
    ovx_test::Watchdog watchdog(o.timeout_s, [] {
      return "rank " + std::to_string(g_rank) + ": the case started last, " +
             std::to_string(g_phase_case.load()) + " (seed " + std::to_string(g_seed) + "),";
    });
    check_rc(OVX_Init(o.policy), "OVX_Init");
    if (!o.calibrate.empty()) calibrate(o.calibrate);
    OVX_Progress in_use = OVX_PROGRESS_DEFAULT;
    check_rc(OVX_Get_progress(&in_use), "OVX_Get_progress");
    std::vector<MPI_Comm> comms = make_comms();
    const std::vector<Combo> combos = make_combos(o.padded);
    Context ctx{MPI_COMM_WORLD, o.max_total, combos, comms, Rng(g_seed)};
    bool expected = true;
    for (const auto& [op, alg] : o.expect) {
      const char* runs = OVX_Algorithm(op.c_str(), 800000, 100000, g_size);
      if (runs == nullptr || alg != runs) {
        expected = false;
        if (g_rank == 0)
          std::fprintf(stderr, "FAIL: OVX_Algorithm(%s) says %s, not %s\n", op.c_str(),
                       runs == nullptr ? "NULL" : runs, alg.c_str());
      }
    }
    if (in_use != o.policy) {
      if (g_rank == 0)
        std::fprintf(stderr, "FAIL: OVX_Get_progress says %s, not %s\n", OVX_Progress_name(in_use),
                     o.policy_name);
    } else if (expected) {
      ok = run_all(o, ctx);
    }
    MPI_Comm_free(&comms[1]);
    MPI_Comm_free(&comms[2]);
    if (!o.keep_engine) check_rc(OVX_Finalize(), "OVX_Finalize");
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (ok && g_rank == 0) print_summary(ctx, o.policy_name, seconds);
  }
  if (!ok && g_rank == 0)
    std::printf("FAIL (seed %llu)\n", static_cast<unsigned long long>(g_seed));
  MPI_Finalize();
  return ok ? 0 : 1;
}
