// API edges added in issue 10: OVX_Request_abandon, and the C++ layer's size checks and
// overlap::in_place forms. Run on 2+ ranks; prints PASS.
#include <overlap/overlap.hpp>

#include <cstdio>
#include <stdexcept>
#include <string>
#include <vector>

#include "verdict.hpp"

namespace {

using ovx_test::expect;

template <class F>
bool throws_invalid_argument(F f) {
  try {
    f();
  } catch (const std::invalid_argument&) {
    return true;
  }
  return false;
}

}  // namespace

int main(int argc, char** argv) {
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const auto p = static_cast<std::size_t>(size);
  {
    overlap::Session session(overlap::Progress::shared);
    // Abandon: rank 0 receives a broadcast rank 1 never sends (after a first collective
    // everyone joins, which sets up the communicator).
    overlap::ibarrier(MPI_COMM_WORLD).wait();
    std::vector<int> data(100, 0);
    if (rank == 0) {
      MPI_Request r;
      OVX_Ibcast(data.data(), 100, MPI_INT, 1, MPI_COMM_WORLD, &r);
      expect(OVX_Request_abandon(&r) == MPI_SUCCESS && r == MPI_REQUEST_NULL,
             "OVX_Request_abandon frees the request");
      MPI_Request plain;
      int x = 0;
      MPI_Irecv(&x, 1, MPI_INT, MPI_ANY_SOURCE, 123, MPI_COMM_SELF, &plain);
      expect(OVX_Request_abandon(&plain) == MPI_ERR_REQUEST && plain != MPI_REQUEST_NULL,
             "a plain request is not abandoned");
      MPI_Cancel(&plain);
      MPI_Wait(&plain, MPI_STATUS_IGNORE);
    }
    // Later collectives on another communicator are fine.
    MPI_Comm dup;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    std::vector<int> mine(3, rank + 1), sum(3, 0);
    overlap::iallreduce<int>(mine, sum, MPI_SUM, dup).wait();
    expect(sum[2] == size * (size + 1) / 2, "allreduce after an abandoned collective");

    // Size checks.
    std::vector<int> block(4, rank), all(4 * p, -1), short_all(4 * p - 1);
    expect(throws_invalid_argument([&] { overlap::iallgather<int>(block, short_all, dup); }),
           "iallgather with a short recv span");
    expect(throws_invalid_argument([&] { overlap::ialltoall<int>(all, short_all, 4, dup); }),
           "ialltoall with a short recv span");
    std::vector<int> odd(4 * p + 1);
    expect(throws_invalid_argument(
               [&] { overlap::iallgather(overlap::in_place, std::span<int>(odd), dup); }),
           "in-place iallgather with a size that is not P blocks");

    // In place.
    std::vector<int> gathered(4 * p, -1);
    for (int i = 0; i < 4; ++i)
      gathered[static_cast<std::size_t>(rank) * 4 + static_cast<std::size_t>(i)] = rank * 10 + i;
    overlap::iallgather(overlap::in_place, std::span<int>(gathered), dup).wait();
    bool ok = true;
    for (std::size_t i = 0; i < gathered.size(); ++i)
      ok = ok && gathered[i] == static_cast<int>(i / 4) * 10 + static_cast<int>(i % 4);
    expect(ok, "in-place iallgather");
    std::vector<int> swap(2 * p);
    for (std::size_t i = 0; i < swap.size(); ++i) swap[i] = rank * 1000 + static_cast<int>(i);
    overlap::ialltoall(overlap::in_place, std::span<int>(swap), dup).wait();
    ok = true;
    for (std::size_t j = 0; j < p; ++j)
      for (std::size_t k = 0; k < 2; ++k)
        ok = ok && swap[2 * j + k] == static_cast<int>(j) * 1000 + 2 * rank + static_cast<int>(k);
    expect(ok, "in-place ialltoall");
    std::vector<int> acc(5, rank + 1);
    overlap::iallreduce(overlap::in_place, std::span<int>(acc), MPI_SUM, dup).wait();
    expect(acc[4] == size * (size + 1) / 2, "in-place iallreduce");
    std::vector<int> red(5, rank + 1), red_out(5, 0);
    if (rank == 0) {
      overlap::ireduce(overlap::in_place, std::span<int>(red), MPI_SUM, overlap::Rank{0}, dup)
          .wait();
      expect(red[0] == size * (size + 1) / 2, "in-place ireduce at the root");
    } else {
      overlap::ireduce<int>(red, red_out, MPI_SUM, overlap::Rank{0}, dup).wait();
    }
    MPI_Comm_free(&dup);
  }
  const int code = ovx_test::verdict("ovx-api-edges");
  MPI_Finalize();
  return code;
}
