/* A C application using the installed C API: liboverlap's allreduce and broadcast are
 * checked against MPI's own, a partitioned ring exchange (8 send partitions against 4
 * receive partitions, two epochs, partitions readied in reverse order) delivers what was
 * sent, the program's MPI_Finalize is liboverlap's (the link order the package gives), and
 * rank 0 prints "consumer ok P". Built two ways: CMake's find_package(Overlap)
 * (CMakeLists.txt) and pkg-config (Makefile). */
#define _GNU_SOURCE /* RTLD_DEFAULT, dladdr */
#include <overlap/overlap.h>

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

enum { N = 4096 };

/* Each rank sends to rank + 1 and receives from rank - 1 (a ring), partitioned. */
static int partitioned_ring(int rank, int size) {
  enum { TOTAL = 4096, SEND_PARTS = 8, RECV_PARTS = 4 };
  static int out[TOTAL], in[TOTAL];
  const int next = (rank + 1) % size, prev = (rank + size - 1) % size;
  OVX_Prequest send = OVX_PREQUEST_NULL, recv = OVX_PREQUEST_NULL;
  int ok = OVX_Psend_init(out, SEND_PARTS, TOTAL / SEND_PARTS, MPI_INT, next, 5, MPI_COMM_WORLD,
                          MPI_INFO_NULL, &send) == MPI_SUCCESS;
  ok = ok && OVX_Precv_init(in, RECV_PARTS, TOTAL / RECV_PARTS, MPI_INT, prev, 5,
                            MPI_COMM_WORLD, MPI_INFO_NULL, &recv) == MPI_SUCCESS;
  for (int epoch = 0; ok && epoch < 2; ++epoch) {
    MPI_Request reqs[2];
    for (int i = 0; i < TOTAL; ++i) {
      out[i] = epoch * 1000000 + rank * 10000 + i;
      in[i] = -1;
    }
    ok = OVX_Start(recv, &reqs[0]) == MPI_SUCCESS && OVX_Start(send, &reqs[1]) == MPI_SUCCESS;
    for (int p = SEND_PARTS - 1; ok && p >= 0; --p) ok = OVX_Pready(p, send) == MPI_SUCCESS;
    if (ok) MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE);
    for (int i = 0; ok && i < TOTAL; ++i) ok = in[i] == epoch * 1000000 + prev * 10000 + i;
    for (int p = 0; ok && p < RECV_PARTS; ++p) {
      int flag = 0;
      ok = OVX_Parrived(recv, p, &flag) == MPI_SUCCESS && flag == 1;
    }
  }
  if (send != OVX_PREQUEST_NULL) OVX_Prequest_free(&send);
  if (recv != OVX_PREQUEST_NULL) OVX_Prequest_free(&recv);
  return ok;
}

/* liboverlap's MPI_Finalize stops its progress thread before MPI tears down; it is only
 * the one called when liboverlap comes before the MPI library in the link order. */
static int finalize_is_liboverlaps(void) {
  Dl_info info;
  void* f = dlsym(RTLD_DEFAULT, "MPI_Finalize");
  if (f != NULL && dladdr(f, &info) != 0 && info.dli_fname != NULL &&
      strstr(info.dli_fname, "liboverlap") != NULL)
    return 1;
  fprintf(stderr, "MPI_Finalize resolves to %s, not liboverlap\n",
          f != NULL && dladdr(f, &info) != 0 ? info.dli_fname : "nothing");
  return 0;
}

int main(int argc, char** argv) {
  int provided = 0, rank = 0, size = 0, ok = 1;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (OVX_Init(OVX_PROGRESS_SHARED) != MPI_SUCCESS) ok = 0;

  static double mine[N], ours[N], theirs[N];
  static int data[N];
  for (int i = 0; i < N; ++i) {
    mine[i] = (double)((rank + 1) * (i % 97)); /* exact sums: equal bit for bit */
    data[i] = rank == 0 ? i : -1;
  }
  MPI_Request reqs[2];
  OVX_Iallreduce(mine, ours, N, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, &reqs[0]);
  OVX_Ibcast(data, N, MPI_INT, 0, MPI_COMM_WORLD, &reqs[1]);
  MPI_Allreduce(mine, theirs, N, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE);
  for (int i = 0; i < N; ++i) {
    if (ours[i] != theirs[i] || data[i] != i) ok = 0;
  }
  if (!partitioned_ring(rank, size)) ok = 0;
  if (!finalize_is_liboverlaps()) ok = 0;
  OVX_Finalize();
  MPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (rank == 0) printf(ok ? "consumer ok %d\n" : "consumer WRONG %d\n", size);
  MPI_Finalize();
  return ok ? 0 : 1;
}
