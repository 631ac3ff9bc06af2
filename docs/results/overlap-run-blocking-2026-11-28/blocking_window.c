/* A program that calls a blocking collective, then works on something else, then reads the
 * result: what overlap-run's deferral of blocking collectives is for (issue 25, item 3).
 *
 *   blocking_window OP BYTES COMP_US ITERATIONS [--output FILE]
 *
 * OP: allreduce (doubles, sum) or alltoall (BYTES per block). Per iteration, after a
 * barrier: the collective on page-aligned buffers, COMP_US of computation that does not
 * read the result (a loop calibrated before MPI_Init, so the engine's thread cannot skew
 * it), then a read of every page of the result. Prints the median time per iteration, the
 * largest over the ranks, and a checksum of the last results (equal plain and under
 * overlap-run). With --output, rank 0 also writes that line to FILE as {"line": ...,
 * "complete": true} before MPI_Finalize (scripts/cluster run --done: MPICH 4.0.2 + UCX may
 * hang in MPI_Finalize across nodes). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static volatile double sink;
static void work(long units) {
  double x = 1;
  for (long i = 0; i < units; i++) x = x * 1.0000001 + 1e-9;
  sink = x;
}

/* Units of work per microsecond, from the fastest of a few timed runs. */
static double calibrate(void) {
  const long units = 2000000;
  double best = 1e9;
  for (int i = 0; i < 5; i++) {
    const double t0 = now();
    work(units);
    const double t = now() - t0;
    if (t < best) best = t;
  }
  return (double)units / (best * 1e6);
}

static int by_value(const void* a, const void* b) {
  const double x = *(const double*)a, y = *(const double*)b;
  return (x > y) - (x < y);
}

int main(int argc, char** argv) {
  const char* output = argc == 7 && strcmp(argv[5], "--output") == 0 ? argv[6] : NULL;
  if (argc != 5 && output == NULL) {
    fprintf(stderr,
            "usage: blocking_window allreduce|alltoall BYTES COMP_US ITERATIONS [--output FILE]\n");
    return 2;
  }
  const int alltoall = strcmp(argv[1], "alltoall") == 0;
  if (!alltoall && strcmp(argv[1], "allreduce") != 0) {
    fprintf(stderr, "blocking_window: OP '%s' is not allreduce or alltoall\n", argv[1]);
    return 2;
  }
  const long bytes = atol(argv[2]);
  const double comp_us = atof(argv[3]);
  const int iterations = atoi(argv[4]);
  if (bytes < 8 || comp_us < 0 || iterations < 1) {
    fprintf(stderr, "blocking_window: BYTES >= 8, COMP_US >= 0, ITERATIONS >= 1\n");
    return 2;
  }
  const double per_us = calibrate();
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const long blocks = alltoall ? size : 1;
  const size_t len = (size_t)(bytes * blocks + 4095) / 4096 * 4096;
  double *send = NULL, *recv = NULL;
  if (posix_memalign((void**)&send, 4096, len) || posix_memalign((void**)&recv, 4096, len)) {
    fprintf(stderr, "blocking_window: no memory for %zu bytes\n", len);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  const int n = (int)(bytes / 8);
  double* times = malloc(sizeof(double) * (size_t)iterations);
  double check = 0;
  for (int it = 0; it < iterations; it++) {
    for (long i = 0; i < n * blocks; i++) send[i] = rank + i % 1000 + it;
    MPI_Barrier(MPI_COMM_WORLD);
    const double t0 = now();
    if (alltoall)
      MPI_Alltoall(send, n, MPI_DOUBLE, recv, n, MPI_DOUBLE, MPI_COMM_WORLD);
    else
      MPI_Allreduce(send, recv, n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    work((long)(comp_us * per_us));
    double sum = 0;
    for (size_t i = 0; i < (size_t)(n * blocks); i += 512) sum += recv[i];
    times[it] = now() - t0;
    check += sum;
  }
  qsort(times, (size_t)iterations, sizeof(double), by_value);
  double median = times[iterations / 2], worst = 0;
  MPI_Reduce(&median, &worst, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  if (rank == 0) {
    char line[256];
    snprintf(line, sizeof line,
             "%s bytes %ld comp_us %.0f iterations %d median_us %.1f checksum %.17g", argv[1],
             bytes, comp_us, iterations, worst * 1e6, check);
    printf("%s\n", line);
    fflush(stdout);
    FILE* f = output != NULL ? fopen(output, "w") : NULL;
    if (f != NULL) {
      fprintf(f, "{\"line\": \"%s\", \"complete\": true}\n", line);
      fclose(f);
    }
  }
  free(times);
  free(send);
  free(recv);
  MPI_Finalize();
  return 0;
}
