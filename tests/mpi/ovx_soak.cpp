// ovx-soak: minutes of random mixes of liboverlap collectives, checked against MPI's own
// (ctest label `soak`, configuration `soak`: not in the default run; `scripts/test --soak`
// or `cmake --build BUILD --target soak`).
//
//   mpiexec -n P ovx-soak caller|shared|dedicated|random [--seconds S] [--threads T]
//                         [--seed N]
// (OVERLAP_TAG_RANGES=R in the environment makes collectives reuse few tag ranges.)
//
// Every rank runs T threads (default 3; MPI_THREAD_MULTIPLE). Each thread has its own
// communicators (collectives on one communicator come from one thread, as MPI requires):
// one where its draws are agreed, two over all ranks and a split into halves. A thread
// runs rounds of the ovx-equality cases (ovx_cases.hpp: every collective, count, root,
// datatype/operation, in place or not, completed by Wait/Test/Waitall/Testall, mixed with
// point-to-point and native MPI collectives, each result compared with MPI's), and between
// rounds sometimes (a) replaces its split communicator by a new one, or (b) starts an
// allreduce on a fresh communicator, frees the communicator and only then waits. Rank 0
// decides when the time is up; every thread of every rank agrees on each round, so all
// stop together. `random` picks the policy from the seed (the same on every rank).
// Prints "PASS: ..." with what ran; on the first mismatch a message naming the case and
// the seed to rerun with.
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include "ovx_cases.hpp"
#include "watchdog.hpp"

namespace {

using namespace ovx_cases;

struct Options {
  std::string policy = "shared";
  int seconds = 120;
  int threads = 3;
  std::uint64_t seed = 0;
  bool seed_given = false;
};

bool parse(int argc, char** argv, Options& o) {
  if (argc < 2) return false;
  o.policy = argv[1];
  if (o.policy != "caller" && o.policy != "shared" && o.policy != "dedicated" &&
      o.policy != "random")
    return false;
  for (int i = 2; i + 1 < argc; i += 2) {
    const std::string opt = argv[i];
    char* end = nullptr;
    const long long v = std::strtoll(argv[i + 1], &end, 10);
    if (end == argv[i + 1] || *end != '\0' || v < 0) return false;
    if (opt == "--seconds") {
      o.seconds = static_cast<int>(v);
    } else if (opt == "--threads" && v >= 1 && v <= 16) {
      o.threads = static_cast<int>(v);
    } else if (opt == "--seed") {
      o.seed = static_cast<std::uint64_t>(v);
      o.seed_given = true;
    } else {
      return false;
    }
  }
  return (argc % 2) == 0;
}

OVX_Progress policy_of(const std::string& name) {
  if (name == "caller") return OVX_PROGRESS_CALLER;
  if (name == "dedicated") return OVX_PROGRESS_DEDICATED;
  return OVX_PROGRESS_SHARED;
}

// One thread's communicators; made by the main thread in the same order on every rank.
struct Comms {
  MPI_Comm agree = MPI_COMM_NULL;
  std::vector<MPI_Comm> work;  // all ranks, all ranks, half
};

Comms make_comms() {
  Comms c;
  c.work.resize(3);
  check_rc(MPI_Comm_dup(MPI_COMM_WORLD, &c.agree), "MPI_Comm_dup");
  check_rc(MPI_Comm_dup(MPI_COMM_WORLD, &c.work[0]), "MPI_Comm_dup");
  check_rc(MPI_Comm_dup(MPI_COMM_WORLD, &c.work[1]), "MPI_Comm_dup");
  check_rc(MPI_Comm_split(MPI_COMM_WORLD, g_rank * 2 / g_size, g_rank, &c.work[2]),
           "MPI_Comm_split");
  return c;
}

// (b): an allreduce on a communicator freed before the wait; the sum is known.
bool free_before_wait(Context& ctx, int round) {
  const int parts = 1 + round % 3;
  MPI_Comm fresh;
  check_rc(MPI_Comm_split(ctx.agree, g_rank % parts, g_rank, &fresh), "MPI_Comm_split");
  std::vector<long long> mine(257, g_rank + 1), sum(257, 0);
  MPI_Request r;
  check_rc(OVX_Iallreduce(mine.data(), sum.data(), 257, MPI_LONG_LONG, MPI_SUM, fresh, &r),
           "OVX_Iallreduce");
  check_rc(MPI_Comm_free(&fresh), "MPI_Comm_free");
  check_rc(MPI_Wait(&r, MPI_STATUS_IGNORE), "MPI_Wait");
  long long want = 0;
  for (int p = 0; p < g_size; ++p) want += p % parts == g_rank % parts ? p + 1 : 0;
  int ok = sum[256] == want && sum[0] == want ? 1 : 0;
  if (!ok) std::fprintf(stderr, "rank %d: MISMATCH allreduce on a freed communicator\n", g_rank);
  check_rc(MPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_MIN, ctx.agree), "MPI_Allreduce");
  return ok == 1;
}

// (a): the split communicator is replaced by another split.
void churn(Comms& comms, int round) {
  check_rc(MPI_Comm_free(&comms.work[2]), "MPI_Comm_free");
  const int color = (g_rank * 2 / g_size + round) % 2;
  check_rc(MPI_Comm_split(comms.agree, color, g_rank, &comms.work[2]), "MPI_Comm_split");
}

struct ThreadResult {
  bool ok = true;
  int cases = 0;
  int rounds = 0;
};

void run_thread(int t, Comms& comms, const std::vector<Combo>& combos,
                std::chrono::steady_clock::time_point deadline, ThreadResult& out) {
  Context ctx{comms.agree, 20000, combos, comms.work,
              Rng(g_seed + 7919 * static_cast<std::uint64_t>(t))};
  for (int round = 0;; ++round) {
    // Rank 0's clock decides, for everyone.
    int go = g_rank == 0 && std::chrono::steady_clock::now() < deadline ? 1 : 0;
    check_rc(MPI_Bcast(&go, 1, MPI_INT, 0, comms.agree), "MPI_Bcast");
    if (go == 0) break;
    const int what = ctx.agree_int(8, 0);
    bool ok = true;
    if (what <= 3) ok = run_sequential(ctx, 5);
    if (what == 4 || what == 5) ok = run_batch(ctx);
    if (what == 6) ok = run_mixed(ctx);
    if (what == 7) ok = free_before_wait(ctx, round);
    if (!ok) {
      out.ok = false;
      break;
    }
    if (ctx.agree_int(4, 0) == 0) churn(comms, round);
    out.rounds = round + 1;
  }
  out.cases = ctx.next_index;
}

}  // namespace

int main(int argc, char** argv) {
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &g_size);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);  // dups and splits inherit it
  Options o;
  if (!parse(argc, argv, o) || provided < MPI_THREAD_MULTIPLE) {
    if (g_rank == 0)
      std::fprintf(stderr,
                   "usage: ovx-soak caller|shared|dedicated|random [--seconds S] [--threads T] "
                   "[--seed N] (needs MPI_THREAD_MULTIPLE)\n");
    MPI_Finalize();
    return 2;
  }
  if (g_rank == 0)
    g_seed = o.seed_given ? o.seed : (std::random_device{}() * 0x9e3779b97f4a7c15ULL) >> 1;
  MPI_Bcast(&g_seed, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
  if (o.policy == "random") {
    const char* names[] = {"caller", "shared", "dedicated"};
    o.policy = names[g_seed % 3];
  }
  if (g_rank == 0) {
    std::printf("ovx-soak: %d ranks x %d threads, policy %s, %d s, seed %llu (rerun with --seed)\n",
                g_size, o.threads, o.policy.c_str(), o.seconds,
                static_cast<unsigned long long>(g_seed));
    std::fflush(stdout);
  }
  ovx_test::Watchdog watchdog(o.seconds + 180, [] {
    return "rank " + std::to_string(g_rank) + ": the case started last, " +
           std::to_string(g_phase_case.load()) + " (seed " + std::to_string(g_seed) + "),";
  });
  check_rc(OVX_Init(policy_of(o.policy)), "OVX_Init");
  const std::vector<Combo> combos = make_combos(false);
  std::vector<Comms> comms;
  for (int t = 0; t < o.threads; ++t) comms.push_back(make_comms());
  const auto t0 = std::chrono::steady_clock::now();
  const auto deadline = t0 + std::chrono::seconds(o.seconds);
  std::vector<ThreadResult> results(static_cast<std::size_t>(o.threads));
  std::vector<std::thread> threads;
  for (int t = 0; t < o.threads; ++t) {
    threads.emplace_back(run_thread, t, std::ref(comms[static_cast<std::size_t>(t)]),
                         std::cref(combos), deadline,
                         std::ref(results[static_cast<std::size_t>(t)]));
  }
  for (auto& th : threads) th.join();
  int ok = 1, cases = 0, rounds = 0;
  for (const auto& r : results) {
    ok = ok && r.ok ? 1 : 0;
    cases += r.cases;
    rounds += r.rounds;
  }
  MPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  for (auto& c : comms) {
    MPI_Comm_free(&c.agree);
    for (auto& w : c.work) MPI_Comm_free(&w);
  }
  check_rc(OVX_Finalize(), "OVX_Finalize");
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (g_rank == 0) {
    if (ok)
      std::printf("PASS: %d cases in %d rounds over %d threads in %.0f s, policy %s, seed %llu\n",
                  cases, rounds, o.threads, seconds, o.policy.c_str(),
                  static_cast<unsigned long long>(g_seed));
    else
      std::printf("FAIL (seed %llu)\n", static_cast<unsigned long long>(g_seed));
  }
  MPI_Finalize();
  return ok ? 0 : 1;
}
