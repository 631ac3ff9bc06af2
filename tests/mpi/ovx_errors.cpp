// liboverlap's refusals, the way MPI reports errors: with MPI_ERRORS_RETURN on the
// communicator every bad call returns a code whose MPI_Error_string names the value and
// what is allowed, and nothing is computed. Run on 2 ranks; prints PASS or the first
// failure.
#include <overlap/overlap.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace {

int failures = 0;

void expect_refused(const char* what, int rc, const std::string& needle, MPI_Request req) {
  char text[MPI_MAX_ERROR_STRING] = {};
  int len = 0;
  if (rc != MPI_SUCCESS) MPI_Error_string(rc, text, &len);
  const std::string message(text, static_cast<std::size_t>(len));
  if (rc == MPI_SUCCESS || message.find(needle) == std::string::npos || req != MPI_REQUEST_NULL) {
    std::printf("FAIL: %s: rc=%d, message '%s', expected it to contain '%s'%s\n", what, rc,
                message.c_str(), needle.c_str(),
                req != MPI_REQUEST_NULL ? " (and a request was created)" : "");
    ++failures;
  }
}

void user_op(void*, void*, int*, MPI_Datatype*) {}

}  // namespace

int main(int argc, char** argv) {
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  std::vector<char> a(4096), b(4096 * 8);
  MPI_Request req;

  req = MPI_REQUEST_NULL;
  expect_refused("SUM on MPI_BYTE",
                 OVX_Iallreduce(a.data(), b.data(), 4, MPI_BYTE, MPI_SUM, MPI_COMM_WORLD, &req),
                 "MPI_SUM is not defined for MPI_BYTE", req);
  MPI_Op mine;
  MPI_Op_create(user_op, 1, &mine);
  req = MPI_REQUEST_NULL;
  expect_refused("user-defined op",
                 OVX_Ireduce(a.data(), b.data(), 4, MPI_INT, mine, 0, MPI_COMM_WORLD, &req),
                 "OVX_Ireduce", req);
  MPI_Op_free(&mine);
  req = MPI_REQUEST_NULL;
  expect_refused("root out of range", OVX_Ibcast(a.data(), 4, MPI_INT, size, MPI_COMM_WORLD, &req),
                 "root=" + std::to_string(size) + " is not a rank of the communicator", req);
  MPI_Datatype strided;
  MPI_Type_vector(4, 1, 2, MPI_INT, &strided);
  MPI_Type_commit(&strided);
  req = MPI_REQUEST_NULL;
  // Reductions take contiguous data only (the data movement collectives pack any datatype:
  // intercept.collectives compares them with MPI's own).
  expect_refused("non-contiguous datatype",
                 OVX_Iallreduce(a.data(), b.data(), 1, strided, MPI_SUM, MPI_COMM_WORLD, &req),
                 "not contiguous", req);
  MPI_Type_free(&strided);
  req = MPI_REQUEST_NULL;
  expect_refused("negative count", OVX_Ibcast(a.data(), -1, MPI_INT, 0, MPI_COMM_WORLD, &req),
                 "count=-1 is negative", req);
  req = MPI_REQUEST_NULL;
  expect_refused("allgather size mismatch",
                 OVX_Iallgather(a.data(), 3, MPI_INT, b.data(), 4, MPI_INT, MPI_COMM_WORLD, &req),
                 "sendcount x sendtype is 12 bytes but recvcount x recvtype is 16 bytes", req);
  // Rooted collectives checked where the argument matters; the other ranks do not call
  // them (their half would be valid and wait forever for the refused root).
  if (rank == 0) {
    req = MPI_REQUEST_NULL;
    expect_refused(
        "scatter root size mismatch",
        OVX_Iscatter(a.data(), 2, MPI_INT, b.data(), 1, MPI_INT, 0, MPI_COMM_WORLD, &req),
        "recvcount x recvtype is 4 bytes but sendcount x sendtype is 8 bytes", req);
  }
  if (rank == size - 1 && size > 1) {
    req = MPI_REQUEST_NULL;
    expect_refused(
        "in place on a non-root",
        OVX_Ireduce(MPI_IN_PLACE, b.data(), 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD, &req),
        "sendbuf is MPI_IN_PLACE on a rank that is not the root", req);
  }
  req = MPI_REQUEST_NULL;
  expect_refused("OVX_Init with another policy", OVX_Init(OVX_PROGRESS_CALLER),
                 "already running with the 'shared' policy", req);

  // Restart with another policy: the communicator's cached duplicate outlives OVX_Finalize
  // (another rank may not have restarted) and carries on.
  OVX_Finalize();
  if (OVX_Init(OVX_PROGRESS_CALLER) != MPI_SUCCESS) {
    std::printf("FAIL: OVX_Init after OVX_Finalize\n");
    ++failures;
  }
  int contribution = rank + 1, sum = 0;
  req = MPI_REQUEST_NULL;
  if (OVX_Iallreduce(&contribution, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &req) == MPI_SUCCESS)
    MPI_Wait(&req, MPI_STATUS_IGNORE);
  if (sum != size * (size + 1) / 2) {
    std::printf("FAIL: allreduce after a restart gave %d, expected %d\n", sum,
                size * (size + 1) / 2);
    ++failures;
  }

  int all = failures;
  MPI_Allreduce(MPI_IN_PLACE, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0) std::printf(all == 0 ? "PASS\n" : "FAILED: %d check(s)\n", all);
  MPI_Finalize();
  return all == 0 ? 0 : 1;
}
