// liboverlap's private ABI (src/progress/private_abi.h), used the way the interception
// library will: requests posted on the application's thread in program order are handed
// to the engine, which tests them in its passes (with its own collectives) and calls back
// with their status. Also: the ABI and the C API share one engine. Run on 2+ ranks;
// prints PASS.
#include <overlap/overlap.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <string>
#include <thread>
#include <vector>

#include "verdict.hpp"

#include "progress/private_abi.h"

namespace {

using ovx_test::expect;

struct Completion {
  std::atomic<int> calls{0};
  MPI_Status status{};
};

void on_done(void* arg, const MPI_Status* status) {
  auto* c = static_cast<Completion*>(arg);
  c->status = *status;
  c->calls.fetch_add(1);
}

bool wait_for(const std::vector<Completion*>& cs) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  long passes = 0;
  for (;;) {
    bool all = true;
    for (auto* c : cs) all = all && c->calls.load() > 0;
    if (all) return true;
    if (std::chrono::steady_clock::now() > deadline) return false;
    // Both kinds of pass, in turn: the in-call one skips only a hold's probe and tests the
    // watched requests as the other does.
    if (++passes % 2 == 0) {
      ovx_private_progress_in_call();
    } else {
      ovx_private_progress();
    }
    std::this_thread::yield();
  }
}

}  // namespace

int main(int argc, char** argv) {
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  expect(ovx_private_abi_version() == OVX_PRIVATE_ABI_VERSION, "ABI version");
  char error[256] = {};
  expect(ovx_private_acquire(OVX_PROGRESS_SHARED, error, sizeof error) == MPI_SUCCESS,
         std::string("ovx_private_acquire: ") + error);
  // The application joins the same engine; another explicit policy is refused.
  expect(OVX_Init(OVX_PROGRESS_DEFAULT) == MPI_SUCCESS, "OVX_Init joins the running engine");
  OVX_Progress policy = OVX_PROGRESS_DEFAULT;
  OVX_Get_progress(&policy);
  expect(policy == OVX_PROGRESS_SHARED, "one engine, with the first user's policy");
  expect(ovx_private_acquire(OVX_PROGRESS_CALLER, error, sizeof error) != MPI_SUCCESS &&
             std::string(error).find("already running") != std::string::npos,
         std::string("a second policy is refused: ") + error);

  const int n = 10000, left = (rank + size - 1) % size, right = (rank + 1) % size;
  std::vector<int> out(n, rank), in(n, -1), sum_in(1000, rank + 1), sum_out(1000, 0);
  MPI_Request recv, send, coll;
  Completion got, sent;
  MPI_Irecv(in.data(), n, MPI_INT, left, 9, MPI_COMM_WORLD, &recv);
  MPI_Isend(out.data(), n, MPI_INT, right, 9, MPI_COMM_WORLD, &send);
  expect(ovx_private_watch(recv, on_done, &got) == MPI_SUCCESS, "watch the receive");
  expect(ovx_private_watch(send, on_done, &sent) == MPI_SUCCESS, "watch the send");
  OVX_Iallreduce(sum_in.data(), sum_out.data(), 1000, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &coll);
  expect(wait_for({&got, &sent}), "the watched requests never completed");
  MPI_Wait(&coll, MPI_STATUS_IGNORE);
  int count = -1;
  MPI_Get_count(&got.status, MPI_INT, &count);
  expect(got.calls.load() == 1 && sent.calls.load() == 1, "one callback per request");
  expect(got.status.MPI_SOURCE == left && got.status.MPI_TAG == 9 && count == n,
         "the receive's status reached the callback");
  expect(in.front() == left && in.back() == left, "received data");
  expect(sum_out[0] == size * (size + 1) / 2, "the collective beside them");
  expect(ovx_private_in_flight() == 0, "nothing left in flight");

  ovx_private_release();
  OVX_Finalize();
  const int code = ovx_test::verdict("ovx-private-abi");
  MPI_Finalize();
  return code;
}
