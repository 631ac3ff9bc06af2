// OVX_Progress_begin/_end: liboverlap's engine drives the application's own point-to-point
// operations (docs/liboverlap.md, "Point-to-point progress"). One scenario per run:
//   moves      causal check that the engine moves them: in each pair, the receiver posts
//              an MPI_Irecv of 4 MiB, opens a hold, tells the sender to start, and then
//              makes no MPI call at all while it watches the last bytes of its buffer
//              (volatile reads) until the data is there; the sender waits in MPI_Wait.
//              Neither MPI places a rendezvous or pipelined message without the
//              receiver's progress, so without the engine the watch never ends (the
//              watchdog fails the test). Both directions.
//   many       many operations in flight at once under holds opened by two threads, mixed
//              sizes (0 B to 256 KiB) and tags, with a liboverlap collective in flight
//              beside them; every byte checked.
//   free-cancel requests the program frees (MPI_Request_free on a send: the peer still
//              receives it) or cancels (an Irecv nobody matches: MPI_Test_cancelled is
//              true), before and after OVX_Progress_end.
//   errors     OVX_Progress_end without a begin is refused with an error whose string
//              says so; begin/end pairs nest.
//   finalize   OVX_Finalize while a hold is open (the engine keeps driving it), then
//              MPI_Finalize with a hold still open and a freed send in flight: no hang.
// Ranks pair up (0-1, 2-3, ...); an odd last rank only joins the collectives. Prints PASS.
#include <overlap/overlap.h>

#include <sched.h>
#include <atomic>
#include <cstdio>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "verdict.hpp"
#include "watchdog.hpp"

namespace {

using ovx_test::expect;

int rank_ = 0, size_ = 0;

// This rank's partner, or -1 (odd last rank).
int partner() {
  const int p = rank_ ^ 1;
  return p < size_ ? p : -1;
}

unsigned char pattern(int from, std::size_t i, int round) {
  return static_cast<unsigned char>((from * 131 + static_cast<int>(i % 251) + round * 7) & 0xff);
}

void moves() {
  constexpr std::size_t kBytes = 4u << 20;
  const int peer = partner();
  std::vector<unsigned char> buf(kBytes);
  for (int round = 0; round < 2; ++round) {
    const bool sender = (rank_ % 2) == round;
    const unsigned char want = pattern(peer, kBytes - 16, round);
    MPI_Request r = MPI_REQUEST_NULL;
    if (peer < 0) {
      // An odd last rank only joins the barriers.
    } else if (sender) {
      for (std::size_t i = 0; i < kBytes; ++i) buf[i] = pattern(rank_, i, round);
    } else {
      // Anything but the byte awaited, so the watch cannot end before the data is there.
      std::memset(buf.data(), static_cast<unsigned char>(~want), kBytes);
      MPI_Irecv(buf.data(), static_cast<int>(kBytes), MPI_BYTE, peer, 11, MPI_COMM_WORLD, &r);
    }
    // The sender starts only once the receiver has made its last MPI call (a token, then
    // 50 ms more), so no MPI call of the receiver's own can place the data: with
    // OVERLAP_PROGRESS=caller on Open MPI this scenario hangs (checked).
    if (peer < 0) {
    } else if (sender) {
      MPI_Recv(nullptr, 0, MPI_BYTE, peer, 12, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
      MPI_Isend(buf.data(), static_cast<int>(kBytes), MPI_BYTE, peer, 11, MPI_COMM_WORLD, &r);
      MPI_Wait(&r, MPI_STATUS_IGNORE);
    } else {
      OVX_Progress_begin();
      MPI_Send(nullptr, 0, MPI_BYTE, peer, 12, MPI_COMM_WORLD);
      // No MPI call from here until the data is seen: only the engine can place it.
      const volatile unsigned char* last = buf.data() + kBytes - 16;
      while (last[0] != want || last[15] != pattern(peer, kBytes - 1, round)) sched_yield();
      OVX_Progress_end();
      MPI_Status st;
      MPI_Wait(&r, &st);
      bool ok = true;
      for (std::size_t i = 0; i < kBytes; ++i) ok = ok && buf[i] == pattern(peer, i, round);
      int count = -1;
      MPI_Get_count(&st, MPI_BYTE, &count);
      expect(ok && count == static_cast<int>(kBytes) && st.MPI_SOURCE == peer,
             "moves: the data placed while the receiver made no MPI call is complete");
    }
    MPI_Barrier(MPI_COMM_WORLD);
  }
}

// `n` messages each way with this rank's partner, sizes 0..256 KiB, tags by index; the
// receives are posted in reverse order (matching is by tag).
bool exchange_many(int n, int round) {
  const int peer = partner();
  if (peer < 0) return true;
  std::vector<std::vector<unsigned char>> out(n), in(n);
  std::vector<MPI_Request> reqs(2 * static_cast<std::size_t>(n));
  for (int k = 0; k < n; ++k) {
    const std::size_t bytes = k % 5 == 0 ? 0 : (static_cast<std::size_t>(k) * 7919u) % (256u << 10);
    out[k].resize(bytes);
    in[k].assign(bytes, 0);
    for (std::size_t i = 0; i < bytes; ++i) out[k][i] = pattern(rank_ + k, i, round);
  }
  for (int k = n - 1; k >= 0; --k)
    MPI_Irecv(in[k].data(), static_cast<int>(in[k].size()), MPI_BYTE, peer, 100 + k, MPI_COMM_WORLD,
              &reqs[static_cast<std::size_t>(n + k)]);
  for (int k = 0; k < n; ++k)
    MPI_Isend(out[k].data(), static_cast<int>(out[k].size()), MPI_BYTE, peer, 100 + k,
              MPI_COMM_WORLD, &reqs[static_cast<std::size_t>(k)]);
  std::this_thread::sleep_for(std::chrono::milliseconds(20));  // "computation", no MPI
  MPI_Waitall(2 * n, reqs.data(), MPI_STATUSES_IGNORE);
  bool ok = true;
  for (int k = 0; k < n; ++k)
    for (std::size_t i = 0; i < in[k].size(); ++i)
      ok = ok && in[k][i] == pattern(peer + k, i, round);
  return ok;
}

void many() {
  std::atomic<bool> stop{false};
  std::atomic<int> helper_errors{0};
  // A second thread opens and closes holds all the time (counted, thread-safe).
  std::thread helper([&] {
    while (!stop.load()) {
      if (OVX_Progress_begin() != MPI_SUCCESS) helper_errors.fetch_add(1);
      std::this_thread::yield();
      if (OVX_Progress_end() != MPI_SUCCESS) helper_errors.fetch_add(1);
    }
  });
  for (int round = 0; round < 4; ++round) {
    OVX_Progress_begin();
    long in = rank_ + 1, sum = 0;
    MPI_Request coll;
    OVX_Iallreduce(&in, &sum, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD, &coll);
    const bool ok = exchange_many(48, round);
    OVX_Progress_end();
    MPI_Wait(&coll, MPI_STATUS_IGNORE);
    expect(ok, "many: every byte of every message");
    expect(sum == static_cast<long>(size_) * (size_ + 1) / 2, "many: the collective beside them");
  }
  stop.store(true);
  helper.join();
  expect(helper_errors.load() == 0, "many: begin/end from a second thread");
}

void free_cancel() {
  const int peer = partner();
  if (peer >= 0) {
    OVX_Progress_begin();
    // Cancelled: a receive nothing will ever match.
    int never = 0;
    MPI_Request r;
    MPI_Irecv(&never, 1, MPI_INT, peer, 999, MPI_COMM_WORLD, &r);
    MPI_Cancel(&r);
    MPI_Status st;
    MPI_Wait(&r, &st);
    int cancelled = 0;
    MPI_Test_cancelled(&st, &cancelled);
    expect(cancelled == 1 && r == MPI_REQUEST_NULL, "free-cancel: a cancelled receive");
    // Freed: a send of 1 MiB the program never waits for; the hold ends before it is done.
    std::vector<unsigned char> out(1u << 20), in(1u << 20, 0);
    for (std::size_t i = 0; i < out.size(); ++i) out[i] = pattern(rank_, i, 3);
    MPI_Request s, q;
    MPI_Irecv(in.data(), static_cast<int>(in.size()), MPI_BYTE, peer, 5, MPI_COMM_WORLD, &q);
    MPI_Isend(out.data(), static_cast<int>(out.size()), MPI_BYTE, peer, 5, MPI_COMM_WORLD, &s);
    MPI_Request_free(&s);
    expect(s == MPI_REQUEST_NULL, "free-cancel: MPI_Request_free");
    OVX_Progress_end();
    MPI_Wait(&q, MPI_STATUS_IGNORE);
    bool ok = true;
    for (std::size_t i = 0; i < in.size(); ++i) ok = ok && in[i] == pattern(peer, i, 3);
    expect(ok, "free-cancel: the freed send arrived whole");
    MPI_Sendrecv(out.data(), 1, MPI_BYTE, peer, 6, in.data(), 1, MPI_BYTE, peer, 6, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
  }
  MPI_Barrier(MPI_COMM_WORLD);  // the freed sends are done once every receive is
}

void errors() {
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  int rc = OVX_Progress_end();
  char text[MPI_MAX_ERROR_STRING] = {};
  int len = 0;
  MPI_Error_string(rc, text, &len);
  expect(rc != MPI_SUCCESS && std::string(text).find("OVX_Progress_begin") != std::string::npos,
         std::string("errors: an end without a begin is refused: ") + text);
  expect(OVX_Progress_begin() == MPI_SUCCESS && OVX_Progress_begin() == MPI_SUCCESS,
         "errors: two begins");
  expect(OVX_Progress_end() == MPI_SUCCESS && OVX_Progress_end() == MPI_SUCCESS,
         "errors: their two ends");
  expect(OVX_Progress_end() != MPI_SUCCESS, "errors: a third end is refused");
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
  expect(exchange_many(8, 9), "errors: traffic after the refusals");
}

void finalize_open() {
  OVX_Progress_begin();
  OVX_Finalize();  // the hold stays open: the engine keeps driving it
  expect(exchange_many(16, 5), "finalize: traffic under a hold that outlived OVX_Finalize");
  expect(OVX_Progress_end() == MPI_SUCCESS, "finalize: its end after OVX_Finalize");
  OVX_Init(OVX_PROGRESS_DEFAULT);
  OVX_Progress_begin();  // never ended: MPI_Finalize drops it
  const int peer = partner();
  if (peer >= 0) {
    static unsigned char out[64 << 10], in[64 << 10];
    MPI_Request s;
    MPI_Isend(out, sizeof out, MPI_BYTE, peer, 8, MPI_COMM_WORLD, &s);
    MPI_Request_free(&s);  // in flight until the peer's receive; MPI_Finalize completes it
    MPI_Recv(in, sizeof in, MPI_BYTE, peer, 8, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  }
}

}  // namespace

int main(int argc, char** argv) {
  const std::string scenario = argc > 1 ? argv[1] : "";
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &size_);
  ovx_test::Watchdog dog(90, [&] { return "ovx-p2p-progress " + scenario; });
  OVX_Init(OVX_PROGRESS_DEFAULT);  // OVERLAP_PROGRESS chooses
  if (scenario == "moves") {
    moves();
  } else if (scenario == "many") {
    many();
  } else if (scenario == "free-cancel") {
    free_cancel();
  } else if (scenario == "errors") {
    errors();
  } else if (scenario == "finalize") {
    finalize_open();
  } else {
    expect(false, "unknown scenario '" + scenario + "'");
  }
  const int code = ovx_test::verdict(("ovx-p2p-progress " + scenario).c_str());
  if (scenario != "finalize") OVX_Finalize();
  MPI_Finalize();
  return code;
}
