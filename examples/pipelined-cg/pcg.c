/* Pipelined conjugate gradients (Ghysels and Vanroose, 2014), written the way such solvers
 * overlap their global reduction: each iteration's one MPI_Iallreduce (two dot products
 * and the residual norm) is hidden behind the matrix-vector product, whose halo exchange
 * is a blocking MPI_Sendrecv per neighbour. Nothing in it knows about overlap-run.
 *
 *   pcg N ITERATIONS WORK
 *
 * Solves A x = b for a 1-D operator of N unknowns per rank (the shifted Laplacian
 * tridiag(-1, 2 + 1e-2, -1), b = 1), rows split over the ranks, for ITERATIONS
 * iterations. WORK: how many times the matrix-vector product is applied per iteration
 * (stands for a costlier operator or a preconditioner; the result is the same product).
 * Prints the time per iteration, the final residual norm and its bits, which are the same
 * however the reduction progressed. */
#include <math.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int rank, size;

/* One line naming the value and what is allowed, exit code 2, before any MPI traffic. */
static long arg(int argc, char** argv, int i, long fallback, const char* what, long least) {
  if (argc <= i) return fallback;
  char* end = NULL;
  const long v = strtol(argv[i], &end, 10);
  if (end == argv[i] || *end != '\0' || v < least) {
    if (rank == 0)
      fprintf(stderr, "pcg: %s=%s is not allowed (an integer of at least %ld)\n", what, argv[i],
              least);
    MPI_Finalize();
    exit(2);
  }
  return v;
}

/* y = A x on this rank's n rows; x has one halo value each side (x[-1], x[n]). */
static void apply(long n, double* x, double* y, int work) {
  const int up = rank > 0 ? rank - 1 : MPI_PROC_NULL;
  const int down = rank < size - 1 ? rank + 1 : MPI_PROC_NULL;
  x[-1] = 0.0, x[n] = 0.0; /* Dirichlet boundary where there is no neighbour */
  MPI_Sendrecv(&x[0], 1, MPI_DOUBLE, up, 1, &x[n], 1, MPI_DOUBLE, down, 1, MPI_COMM_WORLD,
               MPI_STATUS_IGNORE);
  MPI_Sendrecv(&x[n - 1], 1, MPI_DOUBLE, down, 2, &x[-1], 1, MPI_DOUBLE, up, 2, MPI_COMM_WORLD,
               MPI_STATUS_IGNORE);
  for (int k = 0; k < work; ++k) {
    for (long i = 0; i < n; ++i) y[i] = (2.0 + 1e-2) * x[i] - x[i - 1] - x[i + 1];
  }
}

static double* vector(long n) {
  double* v = calloc((size_t)n + 2, sizeof(double));
  if (v == NULL) {
    fprintf(stderr, "pcg: out of memory\n");
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  return v + 1; /* v[-1] and v[n]: halo */
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const long n = arg(argc, argv, 1, 1L << 20, "N", 2);
  const long iterations = arg(argc, argv, 2, 200, "ITERATIONS", 1);
  const int work = (int)arg(argc, argv, 3, 1, "WORK", 1);

  double *x = vector(n), *r = vector(n), *w = vector(n), *p = vector(n), *s = vector(n),
         *z = vector(n), *q = vector(n);
  /* x = 0, so r = b - A x = b = 1, and w = A r. */
  for (long i = 0; i < n; ++i) r[i] = 1.0;
  apply(n, r, w, 1);
  double gamma_old = 0.0, alpha_old = 0.0, norm = 0.0;
  MPI_Barrier(MPI_COMM_WORLD);
  const double t0 = MPI_Wtime();
  for (long it = 0; it < iterations; ++it) {
    double local[3] = {0.0, 0.0, 0.0}, global[3];
    for (long i = 0; i < n; ++i) {
      local[0] += r[i] * r[i]; /* gamma = (r, r), also the residual norm */
      local[1] += w[i] * r[i]; /* delta = (w, r) */
    }
    local[2] = local[0];
    MPI_Request request;
    MPI_Iallreduce(local, global, 3, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, &request);
    apply(n, w, q, work); /* q = A w, while the reduction is in flight */
    MPI_Wait(&request, MPI_STATUS_IGNORE);
    const double gamma = global[0], delta = global[1];
    norm = sqrt(global[2]);
    double beta = 0.0, alpha = gamma / delta;
    if (it > 0) {
      beta = gamma / gamma_old;
      alpha = gamma / (delta - beta * gamma / alpha_old);
    }
    for (long i = 0; i < n; ++i) {
      z[i] = q[i] + beta * z[i];
      s[i] = w[i] + beta * s[i];
      p[i] = r[i] + beta * p[i];
      x[i] += alpha * p[i];
      r[i] -= alpha * s[i];
      w[i] -= alpha * z[i];
    }
    gamma_old = gamma, alpha_old = alpha;
  }
  const double t1 = MPI_Wtime();
  if (rank == 0) {
    uint64_t bits;
    memcpy(&bits, &norm, sizeof bits);
    printf("pcg N %ld per rank, %d ranks, %ld iterations, work %d\n", n, size, iterations, work);
    printf("time per iteration %.3f ms\n", (t1 - t0) / (double)iterations * 1e3);
    printf("residual %.17g (bits %016llx)\n", norm, (unsigned long long)bits);
  }
  double* all[] = {x, r, w, p, s, z, q};
  for (int i = 0; i < 7; ++i) free(all[i] - 1);
  MPI_Finalize();
  return 0;
}
