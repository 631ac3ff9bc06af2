/* A 2-D Jacobi solver for Laplace's equation, written the way an unmodified MPI code is:
 * blocking halo exchange (MPI_Sendrecv), then the interior update (which needs no halo),
 * then the two boundary rows (which read the halos), and a residual check every CHECK
 * iterations. Rows are split over the ranks; the top edge of the global grid is held at 1,
 * the other edges at 0. Each rank's grid is one page-aligned array, rows a whole number of
 * pages (NX a multiple of 512 doubles), so every halo row owns its pages.
 *
 *   mpiexec -n 4 ./jacobi [NX] [ROWS_PER_RANK] [MAX_ITERATIONS] [TOLERANCE]
 *
 * Prints the iteration count, the final residual (also as exact hex bits) and the time per
 * iteration (slowest rank). Run it under overlap-run to let the halo transfers proceed
 * during the interior update. */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHECK 10

static double* grid(size_t nx, size_t rows) {
  void* p = NULL;
  if (posix_memalign(&p, 4096, nx * (rows + 2) * sizeof(double)) != 0) return NULL;
  memset(p, 0, nx * (rows + 2) * sizeof(double));
  return p;
}

/* New value of row i from u into v, columns 1..nx-2; returns the sum of squared changes. */
static double update_row(const double* u, double* v, size_t nx, size_t i) {
  const double* up = u + (i - 1) * nx;
  const double* mid = u + i * nx;
  const double* down = u + (i + 1) * nx;
  double* out = v + i * nx;
  double change = 0;
  for (size_t j = 1; j + 1 < nx; j++) {
    out[j] = 0.25 * (up[j] + down[j] + mid[j - 1] + mid[j + 1]);
    const double d = out[j] - mid[j];
    change += d * d;
  }
  return change;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const long nx = argc > 1 ? atol(argv[1]) : 8192;
  const long rows = argc > 2 ? atol(argv[2]) : 256;
  const long max_it = argc > 3 ? atol(argv[3]) : 500;
  const double tol = argc > 4 ? atof(argv[4]) : 1e-6;
  if (nx < 3 || nx % 512 != 0 || rows < 2 || max_it < 1 || !(tol >= 0)) {
    if (rank == 0)
      fprintf(stderr,
              "jacobi: NX must be a multiple of 512 (>= 512), ROWS_PER_RANK >= 2, "
              "MAX_ITERATIONS >= 1, TOLERANCE >= 0\n");
    MPI_Finalize();
    return 2;
  }
  double* u = grid((size_t)nx, (size_t)rows);
  double* v = grid((size_t)nx, (size_t)rows);
  if (u == NULL || v == NULL) MPI_Abort(MPI_COMM_WORLD, 1);
  const int up = rank > 0 ? rank - 1 : MPI_PROC_NULL;
  const int down = rank + 1 < size ? rank + 1 : MPI_PROC_NULL;
  if (rank == 0) /* the global top edge: row 0 of rank 0 is a fixed boundary at 1 */
    for (long j = 0; j < nx; j++) u[j] = v[j] = 1.0;
  const size_t last = (size_t)rows; /* rows 1..last are ours; 0 and last+1 are halos */

  MPI_Barrier(MPI_COMM_WORLD);
  const double t0 = MPI_Wtime();
  long it = 0;
  double residual = INFINITY;
  while (it < max_it) {
    /* Halo exchange: our first row up, the row below us into the bottom halo; then our
     * last row down, the row above us into the top halo (rank 0's top row is fixed). */
    MPI_Sendrecv(u + nx, (int)nx, MPI_DOUBLE, up, 1, u + (last + 1) * nx, (int)nx, MPI_DOUBLE, down,
                 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Sendrecv(u + last * nx, (int)nx, MPI_DOUBLE, down, 2, u, (int)nx, MPI_DOUBLE, up, 2,
                 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    double change = 0;
    for (size_t i = 2; i < last; i++) change += update_row(u, v, (size_t)nx, i); /* interior */
    change += update_row(u, v, (size_t)nx, 1);                  /* reads the top halo */
    if (last > 1) change += update_row(u, v, (size_t)nx, last); /* reads the bottom halo */
    double* t = u;
    u = v;
    v = t;
    it++;
    if (it % CHECK == 0 || it == max_it) {
      MPI_Allreduce(&change, &residual, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
      residual = sqrt(residual);
      if (residual < tol) break;
    }
  }
  double elapsed = MPI_Wtime() - t0, slowest = 0;
  MPI_Reduce(&elapsed, &slowest, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  if (rank == 0) {
    printf("jacobi: %d ranks, grid %ld x %ld\n", size, nx, rows * size);
    printf("iterations %ld\n", it);
    printf("residual %.17g (bits %a)\n", residual, residual);
    printf("time per iteration %.6g s\n", slowest / (double)it);
  }
  free(u);
  free(v);
  MPI_Finalize();
  return 0;
}
