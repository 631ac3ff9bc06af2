// ovx-hardening: valid (and a few erroneous) MPI programs that liboverlap must get right,
// one scenario per run (issue 10). Each was a wrong result, a hang or an abort before.
//
//   mpiexec -n P ovx-hardening SCENARIO
//
// Scenarios (uses only the C API and the C++ layer of the first release, so the same
// source also builds against older liboverlap to show what it got wrong):
//   tag-ranges         more collectives in flight on one communicator than tag ranges
//                      (run with OVERLAP_TAG_RANGES=2), results checked exactly
//   caller-recv        caller policy: rank 0 blocks in MPI_Recv while its collective is in
//                      flight; the others wait for the collective and then send to rank 0
//   caller-refused     caller policy where no MPI mechanism reaches liboverlap: refused
//   free-comm          the communicator is freed before its collective is waited on
//   ovx-finalize       OVX_Finalize with a collective in flight; it still completes
//   finalize-race      OVX_Finalize while another thread tests the request
//   mpi-finalize       MPI_Finalize with collectives in flight: abandoned with a message
//   nan                MAX/MIN/MAXLOC/MINLOC with NaNs and signed zeros: same bits on
//                      every rank
//   memory             1000 outstanding allreduces cost little heap
//   root-error         an argument refused on the root only, then a good collective
//   many-errors        hundreds of distinct refusals, each with its own message
//   cancel-free        MPI_Cancel refused; MPI_Request_free accepted and reported
//   fork               a child made by fork() neither hangs at exit nor uses liboverlap
//   before-init        an OVX call before MPI_Init neither initialises MPI nor succeeds
//   cxx-unwind         a C++ Request destroyed by an exception does not wait forever
//   cxx-lifetime       a Request outlives its Session, and another outlives MPI_Finalize
//   lone-comms         collectives on fresh one-process communicators while other threads
//                      split communicators of every rank for 10 s: memory stays bounded
//   lone-behind-world  rank 0's first collective on a one-process communicator while its
//                      first on a communicator of every rank (made by MPI_Comm_idup)
//                      waits for rank 1, which waits for rank 0
// Prints "PASS <scenario>" on rank 0 and exits 0; otherwise a line saying what went wrong
// and a nonzero exit (a watchdog aborts a hang after --timeout seconds, default 60).
#include <overlap/overlap.hpp>

#include <malloc.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "verdict.hpp"
#include "watchdog.hpp"

namespace {

using ovx_test::expect;

int g_rank = 0;
int g_size = 1;
// Runs after the verdict is agreed, right before MPI_Finalize.
std::function<void()> g_before_finalize;

void check_rc(int rc, const char* what) {
  if (rc == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING] = {};
  int len = 0;
  MPI_Error_string(rc, text, &len);
  std::fprintf(stderr, "rank %d: %s failed: %s\n", g_rank, what, text);
  MPI_Abort(MPI_COMM_WORLD, 2);
}

std::string error_string(int code) {
  char text[MPI_MAX_ERROR_STRING] = {};
  int len = 0;
  MPI_Error_string(code, text, &len);
  return std::string(text, static_cast<std::size_t>(len));
}

// Captures what this process writes to stderr between construction and text().
class StderrCapture {
 public:
  StderrCapture() {
    std::fflush(stderr);
    std::snprintf(path_, sizeof path_, "/tmp/ovx-hardening-%d-XXXXXX", static_cast<int>(getpid()));
    fd_ = mkstemp(path_);
    saved_ = dup(2);
    dup2(fd_, 2);
  }
  std::string text() {
    std::fflush(stderr);
    dup2(saved_, 2);
    close(saved_);
    close(fd_);
    std::ifstream in(path_);
    std::stringstream all;
    all << in.rdbuf();
    std::remove(path_);
    std::fputs(all.str().c_str(), stderr);  // still shown
    return all.str();
  }

 private:
  char path_[64];
  int fd_ = -1, saved_ = -1;
};

int value_of(int rank, int j, int i) { return ((rank + 1) * 131 + j * 17 + i) % 1000; }

// Sum over ranks of value_of(r, j, i).
long long sum_of(int j, int i) {
  long long s = 0;
  for (int r = 0; r < g_size; ++r) s += value_of(r, j, i);
  return s;
}

// ---------------------------------------------------------------------------------------
// Fix 1: tag ranges
// ---------------------------------------------------------------------------------------

void tag_ranges() {
  check_rc(OVX_Init(OVX_PROGRESS_SHARED), "OVX_Init");
  // Big and small allreduces, broadcasts and allgathers alternate, so that collectives
  // sharing a tag range (every other one with two ranges) have different sizes and steps.
  constexpr int kCollectives = 48;
  const int big = 20000, small = 3, bcast_n = 5000, gather_n = 100;
  std::vector<std::vector<int>> in(kCollectives), out(kCollectives);
  std::vector<MPI_Request> reqs(kCollectives);
  for (int j = 0; j < kCollectives; ++j) {
    const int kind = j % 4;
    const int n = kind == 0 ? big : kind == 1 ? small : kind == 2 ? bcast_n : gather_n;
    in[static_cast<std::size_t>(j)].resize(static_cast<std::size_t>(n));
    for (int i = 0; i < n; ++i)
      in[static_cast<std::size_t>(j)][static_cast<std::size_t>(i)] = value_of(g_rank, j, i);
    auto& o = out[static_cast<std::size_t>(j)];
    auto* req = &reqs[static_cast<std::size_t>(j)];
    int* src = in[static_cast<std::size_t>(j)].data();
    if (kind <= 1) {
      o.resize(static_cast<std::size_t>(n));
      check_rc(OVX_Iallreduce(src, o.data(), n, MPI_INT, MPI_SUM, MPI_COMM_WORLD, req),
               "Iallreduce");
    } else if (kind == 2) {
      check_rc(OVX_Ibcast(src, n, MPI_INT, j % g_size, MPI_COMM_WORLD, req), "Ibcast");
    } else {
      o.resize(static_cast<std::size_t>(n * g_size));
      check_rc(OVX_Iallgather(src, n, MPI_INT, o.data(), n, MPI_INT, MPI_COMM_WORLD, req),
               "Iallgather");
    }
  }
  check_rc(MPI_Waitall(kCollectives, reqs.data(), MPI_STATUSES_IGNORE), "MPI_Waitall");
  for (int j = 0; j < kCollectives; ++j) {
    const auto& o = out[static_cast<std::size_t>(j)];
    const auto& b = in[static_cast<std::size_t>(j)];
    bool ok = true;
    switch (j % 4) {
      case 0:
      case 1:
        for (std::size_t i = 0; i < o.size(); ++i)
          ok = ok && o[i] == sum_of(j, static_cast<int>(i));
        break;
      case 2:
        for (std::size_t i = 0; i < b.size(); ++i)
          ok = ok && b[i] == value_of(j % g_size, j, static_cast<int>(i));
        break;
      default:
        for (std::size_t i = 0; i < o.size(); ++i)
          ok = ok &&
               o[i] == value_of(static_cast<int>(i) / gather_n, j, static_cast<int>(i) % gather_n);
    }
    expect(ok, "collective " + std::to_string(j) + " gave a wrong result");
  }
  check_rc(OVX_Finalize(), "OVX_Finalize");
}

// ---------------------------------------------------------------------------------------
// Fix 2: caller policy
// ---------------------------------------------------------------------------------------

// Rank 0 blocks in MPI_Recv (from every other rank) while its collective is in flight;
// the other ranks first wait for the collective, then send. MPI's own collectives
// complete this; the program is valid.
void caller_round(const std::function<int(MPI_Request*)>& start, const char* what) {
  MPI_Request r;
  check_rc(start(&r), what);
  if (g_rank == 0) {
    for (int src = 1; src < g_size; ++src) {
      int got = -1;
      check_rc(MPI_Recv(&got, 1, MPI_INT, src, 77, MPI_COMM_WORLD, MPI_STATUS_IGNORE), "MPI_Recv");
      expect(got == src, std::string(what) + ": wrong message");
    }
    check_rc(MPI_Wait(&r, MPI_STATUS_IGNORE), "MPI_Wait");
  } else {
    check_rc(MPI_Wait(&r, MPI_STATUS_IGNORE), "MPI_Wait");
    check_rc(MPI_Send(&g_rank, 1, MPI_INT, 0, 77, MPI_COMM_WORLD), "MPI_Send");
  }
}

void caller_recv() {
  check_rc(OVX_Init(OVX_PROGRESS_CALLER), "OVX_Init(caller)");
  // Once with the communicator's duplicate still being made, then with it ready.
  for (int round = 0; round < 2; ++round) {
    caller_round([](MPI_Request* r) { return OVX_Ibarrier(MPI_COMM_WORLD, r); }, "OVX_Ibarrier");
  }
  // Multi-step: recursive doubling needs a pass between its steps.
  std::vector<int> in(1000, g_rank + 1), out(1000, 0);
  caller_round(
      [&](MPI_Request* r) {
        return OVX_Iallreduce(in.data(), out.data(), 1000, MPI_INT, MPI_SUM, MPI_COMM_WORLD, r);
      },
      "OVX_Iallreduce");
  expect(out[999] == g_size * (g_size + 1) / 2, "allreduce under caller: wrong sum");
  check_rc(OVX_Finalize(), "OVX_Finalize");
}

void caller_refused() {
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  const int rc = OVX_Init(OVX_PROGRESS_CALLER);
  const std::string text = rc == MPI_SUCCESS ? "" : error_string(rc);
#if defined(MPICH)
  const char* want = "needs MPI_THREAD_MULTIPLE with MPICH";
#else
  const char* want = "needs a hook into the MPI library's progress loop";
#endif
  expect(rc != MPI_SUCCESS, "OVX_Init(caller) accepted where nothing can progress it");
  expect(text.find(want) != std::string::npos, "refusal says '" + text + "'");
}

// ---------------------------------------------------------------------------------------
// Fix 3: communicator freed before the wait
// ---------------------------------------------------------------------------------------

void free_comm() {
  check_rc(OVX_Init(OVX_PROGRESS_DEFAULT), "OVX_Init");
  for (int iter = 0; iter < 40; ++iter) {
    MPI_Comm sub;
    check_rc(MPI_Comm_split(MPI_COMM_WORLD, iter % 2 == 0 ? 0 : g_rank % 2, g_rank, &sub), "split");
    int sub_size = 0;
    MPI_Comm_size(sub, &sub_size);
    std::vector<int> in(500 + iter, g_rank + 1), out(in.size(), 0);
    MPI_Request r;
    check_rc(OVX_Iallreduce(in.data(), out.data(), static_cast<int>(in.size()), MPI_INT, MPI_SUM,
                            sub, &r),
             "OVX_Iallreduce");
    check_rc(MPI_Comm_free(&sub), "MPI_Comm_free");
    check_rc(MPI_Wait(&r, MPI_STATUS_IGNORE), "MPI_Wait");
    long long want = 0;
    for (int p = 0; p < g_size; ++p) want += (iter % 2 == 0 || p % 2 == g_rank % 2) ? p + 1 : 0;
    expect(out.back() == want, "allreduce on a freed communicator: wrong sum");
  }
  check_rc(OVX_Finalize(), "OVX_Finalize");
}

// ---------------------------------------------------------------------------------------
// Fix 4: finalize with work in flight
// ---------------------------------------------------------------------------------------

// Rank 0 starts an allreduce and calls OVX_Finalize before rank 1 even started its own:
// the request must still complete (and later collectives are refused until OVX_Init).
void ovx_finalize() {
  check_rc(OVX_Init(OVX_PROGRESS_SHARED), "OVX_Init");
  std::vector<int> in(100000, g_rank + 1), out(in.size(), 0);
  MPI_Request r = MPI_REQUEST_NULL;
  const int go = 1;
  if (g_rank == 0) {
    check_rc(OVX_Iallreduce(in.data(), out.data(), 100000, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &r),
             "OVX_Iallreduce");
    check_rc(OVX_Finalize(), "OVX_Finalize");
    for (int p = 1; p < g_size; ++p) MPI_Send(&go, 1, MPI_INT, p, 5, MPI_COMM_WORLD);
  } else {
    int got = 0;
    MPI_Recv(&got, 1, MPI_INT, 0, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    check_rc(OVX_Iallreduce(in.data(), out.data(), 100000, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &r),
             "OVX_Iallreduce");
  }
  check_rc(MPI_Wait(&r, MPI_STATUS_IGNORE), "MPI_Wait after OVX_Finalize");
  expect(out[54321] == g_size * (g_size + 1) / 2, "allreduce across OVX_Finalize: wrong sum");
  if (g_rank == 0) {
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    const int rc = OVX_Ibarrier(MPI_COMM_WORLD, &r);
    expect(rc != MPI_SUCCESS && error_string(rc).find("OVX_Init") != std::string::npos,
           "a collective after OVX_Finalize was not refused");
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
  } else {
    check_rc(OVX_Finalize(), "OVX_Finalize");
  }
}

// Another thread tests the request while this one finalizes liboverlap.
void finalize_race() {
  check_rc(OVX_Init(OVX_PROGRESS_DEFAULT), "OVX_Init");
  for (int round = 0; round < 20; ++round) {
    std::vector<int> in(20000, g_rank + round), out(in.size(), 0);
    MPI_Request r = MPI_REQUEST_NULL;
    const int go = 1;
    if (g_rank == 0) {
      check_rc(OVX_Iallreduce(in.data(), out.data(), 20000, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &r),
               "OVX_Iallreduce");
      std::thread tester([&] {
        int done = 0;
        while (done == 0) check_rc(MPI_Test(&r, &done, MPI_STATUS_IGNORE), "MPI_Test");
      });
      check_rc(OVX_Finalize(), "OVX_Finalize");
      for (int p = 1; p < g_size; ++p) MPI_Send(&go, 1, MPI_INT, p, 6, MPI_COMM_WORLD);
      tester.join();
      check_rc(OVX_Init(OVX_PROGRESS_DEFAULT), "OVX_Init again");
    } else {
      int got = 0;
      MPI_Recv(&got, 1, MPI_INT, 0, 6, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      check_rc(OVX_Iallreduce(in.data(), out.data(), 20000, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &r),
               "OVX_Iallreduce");
      check_rc(MPI_Wait(&r, MPI_STATUS_IGNORE), "MPI_Wait");
    }
    long long want = 0;
    for (int p = 0; p < g_size; ++p) want += p + round;
    expect(out[777] == want, "allreduce racing OVX_Finalize: wrong sum");
  }
  check_rc(OVX_Finalize(), "OVX_Finalize");
}

// Erroneous (MPI requires everything completed before MPI_Finalize), but it must neither
// crash nor hang, and it must say what happened. Rank 0's reduce receives into liboverlap's
// scratch memory; rank 1 sends its part only while rank 0 is already finalizing.
void mpi_finalize(StderrCapture*& capture) {
  check_rc(OVX_Init(OVX_PROGRESS_SHARED), "OVX_Init");
  static std::vector<int> in(1000, 1), out(1000, 0);  // outlive MPI_Finalize
  MPI_Request r;
  if (g_rank == 0) {
    check_rc(OVX_Ireduce(in.data(), out.data(), 1000, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD, &r),
             "OVX_Ireduce");
    capture = new StderrCapture;
  } else {
    g_before_finalize = [] {
      static MPI_Request late;
      std::this_thread::sleep_for(std::chrono::milliseconds(300));
      check_rc(OVX_Ireduce(in.data(), out.data(), 1000, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD, &late),
               "OVX_Ireduce");
      check_rc(MPI_Wait(&late, MPI_STATUS_IGNORE), "MPI_Wait");
    };
  }
}

// ---------------------------------------------------------------------------------------
// Fix 5: NaN and signed zeros
// ---------------------------------------------------------------------------------------

struct DoubleInt {
  double value;
  int index;
};

double special(int rank, int i) {
  switch ((i + 3 * rank + i / 5) % 7) {
    case 0:
      return std::nan(std::to_string(rank + 1).c_str());  // a payload per rank
    case 1:
      return -0.0;
    case 2:
      return 0.0;
    case 3:
      return -std::nan("7");
    case 4:
      return 1.5;
    case 5:
      return -2.0;
    default:
      return 1.5;  // ties for MAXLOC/MINLOC
  }
}

// Every rank's result, compared with rank 0's byte for byte.
bool same_bits_everywhere(const void* data, int bytes, const std::string& what) {
  std::vector<char> all(static_cast<std::size_t>(bytes) * static_cast<std::size_t>(g_size));
  check_rc(MPI_Allgather(data, bytes, MPI_BYTE, all.data(), bytes, MPI_BYTE, MPI_COMM_WORLD),
           "MPI_Allgather of results");
  for (int r = 1; r < g_size; ++r) {
    if (std::memcmp(all.data(), all.data() + static_cast<std::size_t>(r) * bytes,
                    static_cast<std::size_t>(bytes)) != 0) {
      expect(false, what + ": rank " + std::to_string(r) + " got other bits than rank 0");
      return false;
    }
  }
  return true;
}

void nan_signed_zeros() {
  check_rc(OVX_Init(OVX_PROGRESS_DEFAULT), "OVX_Init");
  for (int n : {1, 64, 100003}) {
    for (MPI_Op op : {MPI_MAX, MPI_MIN}) {
      for (bool in_place : {false, true}) {
        std::vector<double> in(static_cast<std::size_t>(n)), out(in.size());
        for (int i = 0; i < n; ++i) in[static_cast<std::size_t>(i)] = special(g_rank, i);
        if (in_place) out = in;
        MPI_Request r;
        check_rc(OVX_Iallreduce(in_place ? MPI_IN_PLACE : in.data(), out.data(), n, MPI_DOUBLE, op,
                                MPI_COMM_WORLD, &r),
                 "OVX_Iallreduce");
        check_rc(MPI_Wait(&r, MPI_STATUS_IGNORE), "MPI_Wait");
        same_bits_everywhere(
            out.data(), n * 8,
            std::string(op == MPI_MAX ? "MAX" : "MIN") + " n=" + std::to_string(n));
      }
    }
    for (MPI_Op op : {MPI_MAXLOC, MPI_MINLOC}) {
      std::vector<DoubleInt> in(static_cast<std::size_t>(n)), out(in.size());
      for (int i = 0; i < n; ++i) in[static_cast<std::size_t>(i)] = {special(g_rank, i), g_rank};
      MPI_Request r;
      check_rc(OVX_Iallreduce(in.data(), out.data(), n, MPI_DOUBLE_INT, op, MPI_COMM_WORLD, &r),
               "OVX_Iallreduce");
      check_rc(MPI_Wait(&r, MPI_STATUS_IGNORE), "MPI_Wait");
      // Padding bytes carry nothing: compare the fields.
      std::vector<char> packed;
      for (const auto& e : out) {
        packed.insert(packed.end(), reinterpret_cast<const char*>(&e.value),
                      reinterpret_cast<const char*>(&e.value) + 8);
        packed.insert(packed.end(), reinterpret_cast<const char*>(&e.index),
                      reinterpret_cast<const char*>(&e.index) + 4);
      }
      same_bits_everywhere(
          packed.data(), static_cast<int>(packed.size()),
          std::string(op == MPI_MAXLOC ? "MAXLOC" : "MINLOC") + " n=" + std::to_string(n));
    }
  }
  check_rc(OVX_Finalize(), "OVX_Finalize");
}

// ---------------------------------------------------------------------------------------
// Fix 6: memory of many outstanding collectives
// ---------------------------------------------------------------------------------------

std::size_t heap_in_use() {
  const struct mallinfo2 m = mallinfo2();
  return m.uordblks + m.hblkhd;
}

void memory() {
  check_rc(OVX_Init(OVX_PROGRESS_SHARED), "OVX_Init");
  constexpr int kCollectives = 1000;
  constexpr int kCount = 16384;  // 64 KiB of MPI_INT each
  std::vector<int> in(kCount, g_rank + 1);
  std::vector<std::vector<int>> out(kCollectives, std::vector<int>(kCount, 0));
  std::vector<MPI_Request> reqs(kCollectives);
  // A first collective creates the communicator's state; it is not what is measured.
  MPI_Request first;
  check_rc(OVX_Ibarrier(MPI_COMM_WORLD, &first), "OVX_Ibarrier");
  check_rc(MPI_Wait(&first, MPI_STATUS_IGNORE), "MPI_Wait");
  const std::size_t before = heap_in_use();
  for (int j = 0; j < kCollectives; ++j) {
    check_rc(OVX_Iallreduce(in.data(), out[static_cast<std::size_t>(j)].data(), kCount, MPI_INT,
                            MPI_SUM, MPI_COMM_WORLD, &reqs[static_cast<std::size_t>(j)]),
             "OVX_Iallreduce");
  }
  const std::size_t grown = heap_in_use() - std::min(before, heap_in_use());
  // What a waiting collective may cost: its task list, not its scratch (64 KiB or more
  // each before issue 10, allocated at submission: 64 MiB and up here).
  const std::size_t bound = 24u << 20;
  expect(grown < bound, "1000 outstanding allreduces of 64 KiB grew the heap by " +
                            std::to_string(grown >> 10) + " KiB (bound " +
                            std::to_string(bound >> 10) + " KiB)");
  check_rc(MPI_Waitall(kCollectives, reqs.data(), MPI_STATUSES_IGNORE), "MPI_Waitall");
  const int want = g_size * (g_size + 1) / 2;
  for (const auto& o : out) expect(o.front() == want && o.back() == want, "wrong sum");
  if (g_rank == 0) std::printf("heap growth with 1000 outstanding: %zu KiB\n", grown >> 10);
  check_rc(OVX_Finalize(), "OVX_Finalize");
}

// ---------------------------------------------------------------------------------------
// Fix 6 (error classes) and Fix 7 (errors that desynchronise)
// ---------------------------------------------------------------------------------------

// The root's arguments are refused (on the root only): the others' gather can never
// complete, but the next collective must line up on every rank.
void root_error() {
  check_rc(OVX_Init(OVX_PROGRESS_DEFAULT), "OVX_Init");
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  std::vector<int> send(4, g_rank), recv(static_cast<std::size_t>(5 * g_size), -1);
  MPI_Request stuck = MPI_REQUEST_NULL;
  // recvcount 5 against sendcount 4: only the root checks the receive side.
  const int rc =
      OVX_Igather(send.data(), 4, MPI_INT, recv.data(), 5, MPI_INT, 0, MPI_COMM_WORLD, &stuck);
  if (g_rank == 0) expect(rc != MPI_SUCCESS, "the root accepted a mismatched gather");
  std::vector<int> in(1000, g_rank + 1), out(1000, 0);
  MPI_Request r;
  check_rc(OVX_Iallreduce(in.data(), out.data(), 1000, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &r),
           "OVX_Iallreduce after the refusal");
  check_rc(MPI_Wait(&r, MPI_STATUS_IGNORE), "MPI_Wait");
  expect(out[500] == g_size * (g_size + 1) / 2, "allreduce after a root-only refusal: wrong sum");
  // The other ranks' gather stays in flight: MPI_Finalize abandons it (with a message).
  (void)stuck;
}

void many_errors() {
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  check_rc(OVX_Init(OVX_PROGRESS_DEFAULT), "OVX_Init");
  int buf = 0;
  for (int k = 1; k <= 400; ++k) {
    MPI_Request r = MPI_REQUEST_NULL;
    const int rc = OVX_Ibcast(&buf, -k, MPI_INT, 0, MPI_COMM_WORLD, &r);
    const std::string want = "count=-" + std::to_string(k) + " is negative";
    const std::string got = rc == MPI_SUCCESS ? "" : error_string(rc);
    if (got.find(want) == std::string::npos) {
      expect(false, "refusal " + std::to_string(k) + " says '" + got + "', not '" + want + "'");
      break;
    }
  }
  check_rc(OVX_Finalize(), "OVX_Finalize");
}

// ---------------------------------------------------------------------------------------
// Fix 8: API edges
// ---------------------------------------------------------------------------------------

void cancel_free() {
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
  check_rc(OVX_Init(OVX_PROGRESS_SHARED), "OVX_Init");
  std::vector<int> in(5000, g_rank + 1), out(5000, 0);
  MPI_Request r;
  check_rc(OVX_Iallreduce(in.data(), out.data(), 5000, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &r),
           "Iallreduce");
  const int rc = MPI_Cancel(&r);
  expect(rc != MPI_SUCCESS, "MPI_Cancel on a collective's request was accepted");
  expect(error_string(rc).find("MPI_Cancel") != std::string::npos,
         "MPI_Cancel refusal says '" + error_string(rc) + "'");
  expect(r != MPI_REQUEST_NULL, "the refused MPI_Cancel freed the request");
  check_rc(MPI_Wait(&r, MPI_STATUS_IGNORE), "MPI_Wait after the refused MPI_Cancel");
  expect(out[0] == g_size * (g_size + 1) / 2, "allreduce after MPI_Cancel: wrong sum");

  std::vector<int> out2(5000, 0);
  check_rc(OVX_Iallreduce(in.data(), out2.data(), 5000, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &r),
           "Iallreduce");
  StderrCapture capture;
  check_rc(MPI_Request_free(&r), "MPI_Request_free");
  expect(r == MPI_REQUEST_NULL, "MPI_Request_free left the request");
  // The collective completes in the background: wait for its result.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  const int want = g_size * (g_size + 1) / 2;
  while (std::atomic_ref<int>(out2[4999]).load() != want &&
         std::chrono::steady_clock::now() < deadline)
    OVX_Poll(nullptr);
  MPI_Barrier(MPI_COMM_WORLD);
  expect(out2[4999] == want, "the freed collective did not complete");
  expect(capture.text().find("MPI_Request_free") != std::string::npos,
         "MPI_Request_free on a collective was not reported");
  check_rc(OVX_Finalize(), "OVX_Finalize");
}

void fork_child() {
  check_rc(OVX_Init(OVX_PROGRESS_SHARED), "OVX_Init");
  MPI_Request r;
  check_rc(OVX_Ibarrier(MPI_COMM_WORLD, &r), "OVX_Ibarrier");
  check_rc(MPI_Wait(&r, MPI_STATUS_IGNORE), "MPI_Wait");  // the engine's thread runs
  for (const bool call : {false, true}) {
    std::fflush(nullptr);
    const pid_t pid = fork();
    if (pid == 0) {
      // The child: liboverlap must refuse at once (no MPI), and exit must not hang.
      int code = 0;
      if (call) code = OVX_Ibarrier(MPI_COMM_WORLD, &r) == MPI_SUCCESS ? 4 : 0;
      std::exit(code);  // runs static destructors
    }
    int status = 0;
    pid_t got = 0;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    while ((got = waitpid(pid, &status, WNOHANG)) == 0 &&
           std::chrono::steady_clock::now() < deadline)
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    if (got == 0) {
      kill(pid, SIGKILL);
      waitpid(pid, &status, 0);
      expect(false,
             std::string("the forked child hung at exit") + (call ? " after an OVX call" : ""));
    } else {
      expect(WIFEXITED(status) && WEXITSTATUS(status) == 0,
             "the forked child exited with status " + std::to_string(status));
    }
  }
  check_rc(OVX_Finalize(), "OVX_Finalize");
}

// Called before MPI_Init.
void before_init() {
  MPI_Request r = MPI_REQUEST_NULL;
  const int rc = OVX_Ibarrier(MPI_COMM_WORLD, &r);
  int initialized = 0;
  MPI_Initialized(&initialized);
  expect(rc != MPI_SUCCESS, "an OVX call before MPI_Init succeeded");
  expect(initialized == 0, "an OVX call initialised MPI");
}

// Rank 0 starts an allreduce nobody else joins and leaves its scope by an exception.
void cxx_unwind() {
  overlap::Session session(overlap::Progress::shared);
  std::vector<int> in(1000, 1), out(1000, 0);
  if (g_rank == 0) {
    try {
      auto r = overlap::iallreduce<int>(in, out, MPI_SUM, MPI_COMM_WORLD);
      throw std::runtime_error("failure while the collective is in flight");
    } catch (const std::runtime_error&) {
      // reached only if the Request's destructor did not wait forever
    }
  }
  MPI_Barrier(MPI_COMM_WORLD);
}

// ---------------------------------------------------------------------------------------
// Fix 7: one-process communicators while other threads make communicators
// ---------------------------------------------------------------------------------------

long resident_mib() {
  std::ifstream statm("/proc/self/statm");
  long pages = 0, resident = 0;
  statm >> pages >> resident;
  return resident * sysconf(_SC_PAGESIZE) / (1 << 20);
}

// Two threads split their own duplicates of MPI_COMM_WORLD again and again while two
// others run allreduces on fresh one-process communicators. liboverlap's hidden
// MPI_Comm_idup of each such communicator (it makes none now) retried its context-id
// agreement forever inside MPICH 4.0 while a split held the context-id mask, the heap
// growing until the kernel killed the rank (docs/results/idup-self-2026-11-30).
void lone_comms() {
  check_rc(OVX_Init(OVX_PROGRESS_CALLER), "OVX_Init");
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  std::atomic<int> splitting{2};
  std::atomic<long> lone{0}, wrong{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 2; ++t) {
    MPI_Comm mine;
    check_rc(MPI_Comm_dup(MPI_COMM_WORLD, &mine), "MPI_Comm_dup");
    threads.emplace_back([&, mine]() mutable {
      for (int i = 0;; ++i) {  // rank 0's clock decides, for everyone
        int go = g_rank == 0 && std::chrono::steady_clock::now() < deadline ? 1 : 0;
        check_rc(MPI_Bcast(&go, 1, MPI_INT, 0, mine), "MPI_Bcast");
        if (go == 0) break;
        MPI_Comm part;
        check_rc(MPI_Comm_split(mine, (g_rank + i) % 2, g_rank, &part), "MPI_Comm_split");
        check_rc(MPI_Comm_free(&part), "MPI_Comm_free");
      }
      check_rc(MPI_Comm_free(&mine), "MPI_Comm_free");
      --splitting;
    });
  }
  for (int t = 0; t < 2; ++t) {
    threads.emplace_back([&] {
      while (splitting > 0) {
        MPI_Comm alone;
        check_rc(MPI_Comm_split(MPI_COMM_SELF, 0, 0, &alone), "MPI_Comm_split");
        int in = g_rank + 7, out = 0;
        MPI_Request r;
        check_rc(OVX_Iallreduce(&in, &out, 1, MPI_INT, MPI_SUM, alone, &r), "OVX_Iallreduce");
        check_rc(MPI_Wait(&r, MPI_STATUS_IGNORE), "MPI_Wait");
        check_rc(MPI_Comm_free(&alone), "MPI_Comm_free");
        if (out != in) ++wrong;
        ++lone;
      }
    });
  }
  long peak = 0;
  while (splitting > 0) {
    peak = std::max(peak, resident_mib());
    if (peak > 256) {  // the rank is stuck inside MPI: no verdict can be agreed
      std::fprintf(stderr,
                   "rank %d: FAIL: resident memory passed 256 MiB (%ld MiB) while "
                   "collectives on one-process communicators met splits\n",
                   g_rank, peak);
      std::fflush(stderr);
      std::_Exit(3);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  for (auto& t : threads) t.join();
  expect(wrong == 0, std::to_string(wrong.load()) +
                         " allreduces on one-process communicators gave a wrong sum");
  if (g_rank == 0)
    std::printf("%ld collectives on one-process communicators, peak %ld MiB\n", lone.load(), peak);
  check_rc(OVX_Finalize(), "OVX_Finalize");
}

// Rank 0 starts the first collective on a communicator of every rank (its hidden
// duplicate is being made, and rank 1 has not joined), then one on a one-process
// communicator, then sends to rank 1, which receives before its own first collective on
// the first: a valid program. A blocking duplication of the one-process communicator
// waited behind the pending one in Open MPI 4.1 (its context-id agreement lets the lowest
// communicator id go first): a deadlock, ended here by the watchdog. The communicator of
// every rank is made by MPI_Comm_idup, whose duplicate liboverlap still makes at the first
// collective with Open MPI (it makes the others' inside the creation calls).
void lone_behind_world() {
  check_rc(OVX_Init(OVX_PROGRESS_CALLER), "OVX_Init");
  MPI_Comm lone, all;
  MPI_Request made;
  check_rc(MPI_Comm_idup(MPI_COMM_WORLD, &all, &made), "MPI_Comm_idup");
  check_rc(MPI_Wait(&made, MPI_STATUS_IGNORE), "MPI_Wait");
  check_rc(MPI_Comm_split(MPI_COMM_WORLD, g_rank, 0, &lone), "MPI_Comm_split");
  int in = g_rank + 1, out = 0, lone_in = 5, lone_out = 0, token = 0;
  MPI_Request world = MPI_REQUEST_NULL, alone = MPI_REQUEST_NULL;
  if (g_rank == 0) {
    check_rc(OVX_Iallreduce(&in, &out, 1, MPI_INT, MPI_SUM, all, &world), "OVX_Iallreduce");
    check_rc(OVX_Iallreduce(&lone_in, &lone_out, 1, MPI_INT, MPI_SUM, lone, &alone),
             "OVX_Iallreduce");
    for (int p = 1; p < g_size; ++p)
      check_rc(MPI_Send(&token, 1, MPI_INT, p, 3, MPI_COMM_WORLD), "MPI_Send");
    check_rc(MPI_Wait(&alone, MPI_STATUS_IGNORE), "MPI_Wait");
  } else {
    check_rc(MPI_Recv(&token, 1, MPI_INT, 0, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE), "MPI_Recv");
    check_rc(OVX_Iallreduce(&in, &out, 1, MPI_INT, MPI_SUM, all, &world), "OVX_Iallreduce");
  }
  check_rc(MPI_Wait(&world, MPI_STATUS_IGNORE), "MPI_Wait");
  expect(out == g_size * (g_size + 1) / 2, "allreduce on every rank: wrong sum");
  if (g_rank == 0) expect(lone_out == 5, "allreduce on a one-process communicator: wrong sum");
  check_rc(MPI_Comm_free(&lone), "MPI_Comm_free");
  check_rc(MPI_Comm_free(&all), "MPI_Comm_free");
  check_rc(OVX_Finalize(), "OVX_Finalize");
}

std::optional<overlap::Request> g_after_finalize;

// A Request outlives its Session (and must complete); another outlives MPI_Finalize.
void cxx_lifetime() {
  std::vector<int> in(50000, g_rank + 1), out(50000, 0);
  overlap::Request kept;
  const int go = 1;
  {
    overlap::Session session(overlap::Progress::shared);
    if (g_rank == 0) kept = overlap::iallreduce<int>(in, out, MPI_SUM, MPI_COMM_WORLD);
  }  // OVX_Finalize with the collective in flight on rank 0
  if (g_rank == 0) {
    for (int p = 1; p < g_size; ++p) MPI_Send(&go, 1, MPI_INT, p, 8, MPI_COMM_WORLD);
  } else {
    int got = 0;
    MPI_Recv(&got, 1, MPI_INT, 0, 8, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    overlap::Session session(overlap::Progress::shared);
    kept = overlap::iallreduce<int>(in, out, MPI_SUM, MPI_COMM_WORLD);
    kept.wait();
  }
  if (g_rank == 0) kept.wait();
  expect(out[100] == g_size * (g_size + 1) / 2, "a Request that outlived its Session: wrong sum");
  // Completed on every rank, never waited: its destructor runs after MPI_Finalize.
  static std::vector<int> in2(10, 1), out2(10, 0);
  check_rc(OVX_Init(OVX_PROGRESS_SHARED), "OVX_Init");
  g_after_finalize = overlap::iallreduce<int>(in2, out2, MPI_SUM, MPI_COMM_WORLD);
  MPI_Barrier(MPI_COMM_WORLD);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: ovx-hardening SCENARIO [--timeout SEC]\n");
    return 2;
  }
  const std::string scenario = argv[1];
  const int timeout = argc >= 4 && std::string(argv[2]) == "--timeout" ? std::atoi(argv[3]) : 60;
  ovx_test::Watchdog watchdog(
      timeout, [scenario] { return "rank " + std::to_string(g_rank) + ": " + scenario; });
  if (scenario == "before-init") before_init();
  int provided = 0;
#if defined(MPICH)
  const int level = scenario == "caller-refused" ? MPI_THREAD_FUNNELED : MPI_THREAD_MULTIPLE;
#else
  const int level = MPI_THREAD_MULTIPLE;
#endif
  MPI_Init_thread(&argc, &argv, level, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &g_size);
  StderrCapture* at_finalize = nullptr;
  const std::map<std::string, std::function<void()>> scenarios = {
      {"tag-ranges", tag_ranges},
      {"caller-recv", caller_recv},
      {"caller-refused", caller_refused},
      {"free-comm", free_comm},
      {"ovx-finalize", ovx_finalize},
      {"finalize-race", finalize_race},
      {"mpi-finalize", [&] { mpi_finalize(at_finalize); }},
      {"nan", nan_signed_zeros},
      {"memory", memory},
      {"root-error", root_error},
      {"many-errors", many_errors},
      {"cancel-free", cancel_free},
      {"fork", fork_child},
      {"before-init", [] {}},
      {"cxx-unwind", cxx_unwind},
      {"cxx-lifetime", cxx_lifetime},
      {"lone-comms", lone_comms},
      {"lone-behind-world", lone_behind_world}};
  const auto it = scenarios.find(scenario);
  if (it == scenarios.end()) {
    if (g_rank == 0)
      std::fprintf(stderr, "ovx-hardening: unknown scenario '%s'\n", scenario.c_str());
    MPI_Finalize();
    return 2;
  }
  it->second();
  int code = ovx_test::verdict(scenario.c_str());
  if (g_before_finalize) g_before_finalize();
  MPI_Finalize();
  // After MPI_Finalize no collective verdict is possible: this check is rank 0's alone.
  if (at_finalize != nullptr &&
      at_finalize->text().find("still in flight at MPI_Finalize") == std::string::npos) {
    std::fprintf(stderr, "rank 0: FAIL: MPI_Finalize did not report the collective in flight\n");
    code = 1;
  }
  return code;
}
