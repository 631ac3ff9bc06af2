/* Overlap with an idle caller: OVX_I<op> of BYTES, the caller sleeps COMP_US (a rank
 * waiting on a GPU or on I/O), then MPI_Wait; and, for reference, the same collective
 * waited on at once, and the sleep alone. Prints, on rank 0, the mean and the fastest iteration of each (the
 * slowest rank's time per iteration). The progress thread has the core to itself while
 * the caller sleeps: the one case of a free core that one core per node can show.
 *   idle_overlap POLICY BYTES COMP_US ITERATIONS bcast|allreduce|alltoall
 * POLICY: caller, shared or dedicated. Calibrates liboverlap's cost model first
 * (OVX_Calibrate), as overlap-run and overlap-bench do. Built and run by run.sh. */
#include <mpi.h>
#include <overlap/overlap.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static void nap(double us) {
  struct timespec ts = {(time_t)(us / 1e6), (long)(us * 1000) % 1000000000L};
  clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, NULL);
}

static void start(const char* op, double* a, double* b, long n, int p, MPI_Request* r) {
  if (strcmp(op, "bcast") == 0)
    OVX_Ibcast(a, (int)n, MPI_DOUBLE, 0, MPI_COMM_WORLD, r);
  else if (strcmp(op, "allreduce") == 0)
    OVX_Iallreduce(a, b, (int)n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, r);
  else
    OVX_Ialltoall(a, (int)(n / p), MPI_DOUBLE, b, (int)(n / p), MPI_DOUBLE, MPI_COMM_WORLD, r);
}

int main(int argc, char** argv) {
  int provided;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  if (argc != 6) {
    fprintf(stderr, "usage: idle_overlap POLICY BYTES COMP_US ITERATIONS OP\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  const char* pol = argv[1];
  const long bytes = atol(argv[2]);
  const double comp = atof(argv[3]);
  const int iterations = atoi(argv[4]);
  const char* op = argv[5];
  OVX_Init(strcmp(pol, "shared") == 0      ? OVX_PROGRESS_SHARED
           : strcmp(pol, "dedicated") == 0 ? OVX_PROGRESS_DEDICATED
                                           : OVX_PROGRESS_CALLER);
  OVX_Calibrate();
  int rank, p;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &p);
  const long n = bytes / 8;
  double* a = calloc((size_t)(n * p), 8);
  double* b = calloc((size_t)(n * p), 8);
  /* mode 0: the collective alone; 1: overlapped with the sleep; 2: the sleep alone (what
   * COMP_US of sleep really takes here, the reference the overlapped time is judged by) */
  static const char* const mode_name[] = {"alone", "overlapped", "asleep"};
  for (int mode = 0; mode < 3; ++mode) {
    double sum = 0, fastest = 1e30;
    for (int i = 0; i <= iterations; ++i) { /* the first is a warm-up */
      MPI_Request r;
      MPI_Barrier(MPI_COMM_WORLD);
      const double t0 = MPI_Wtime();
      if (mode < 2) start(op, a, b, n, p, &r);
      if (mode > 0) nap(comp);
      if (mode < 2) MPI_Wait(&r, MPI_STATUS_IGNORE);
      double t = (MPI_Wtime() - t0) * 1e6, slowest;
      MPI_Allreduce(&t, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
      if (i == 0) continue;
      sum += slowest;
      if (slowest < fastest) fastest = slowest;
    }
    if (rank == 0)
      printf("%s %s %ld B comp %.0f us %s: mean %.0f us fastest %.0f us\n", pol, op, bytes, comp,
             mode_name[mode], sum / iterations, fastest);
  }
  free(a);
  free(b);
  OVX_Finalize();
  MPI_Finalize();
  return 0;
}
