/* The loop `overlap-bench advise` models, as a program would write it: per iteration one
 * MPI_Iallreduce of BYTES per rank is started, a fixed amount of computation runs, and the
 * reduction is waited for. Nothing in it knows about liboverlap: run it plain, and under
 * overlap-run with the set-up advise recommends, and compare the time per iteration it
 * prints with advise's prediction (docs/which-configuration.md).
 *
 *     mpicc -O2 -o loop loop.c
 *     mpiexec -n 2 ./loop 1048576 4 200
 *     mpiexec -n 2 overlap-run --progress shared -- ./loop 1048576 4 200
 *
 * Arguments: BYTES (the reduction's buffer per rank, a multiple of 8: doubles), COMP_MS
 * (the computation per iteration: the kernel's work is calibrated once, on every rank, to
 * take this long alone; the slowest rank's count of sweeps is used), ITERATIONS, and
 * optionally `halo`: the loop advise models for --op ihalo instead, a stencil code's own
 * point-to-point (MPI_Irecv from and MPI_Isend of BYTES to each ring neighbour, the
 * computation, MPI_Waitall; a plain-MPI program only).
 *
 *     mpiexec -n 2 overlap-run --progress shared -- ./loop 262144 4 200 halo
 *
 * Built with -DLOOP_LIBOVERLAP (and liboverlap: pkg-config --cflags --libs overlap), the
 * same loop calls liboverlap's OVX_Iallreduce instead, with the policy of
 * $OVERLAP_PROGRESS: how a program gets advise's `caller` set-up, which overlap-run cannot
 * give an unmodified program (it leaves a program's own collectives to MPI under caller).
 *
 *     OVERLAP_PROGRESS=caller mpiexec -n 2 ./loop-liboverlap 1048576 4 200 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef LOOP_LIBOVERLAP
#include <overlap/overlap.h>
#define IALLREDUCE OVX_Iallreduce
#else
#define IALLREDUCE MPI_Iallreduce
#endif

enum { KERNEL_DOUBLES = 32768 }; /* 256 KiB: stays in a core's cache */

static double kernel[KERNEL_DOUBLES];
static volatile double sink; /* every result is used: calibration and loop do the same work */

/* `sweeps` passes of a multiply-add over the kernel's array: fixed work. */
static double compute(long sweeps) {
  double sum = 0;
  for (long s = 0; s < sweeps; ++s) {
    for (int i = 0; i < KERNEL_DOUBLES; ++i) {
      kernel[i] = kernel[i] * 0.999999 + 1e-9;
      sum += kernel[i];
    }
  }
  return sum;
}

static long arg(int argc, char** argv, int i, long least, const char* what) {
  char* end = NULL;
  const long v = i < argc ? strtol(argv[i], &end, 10) : -1;
  if (i >= argc || end == argv[i] || *end != '\0' || v < least) {
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0)
      fprintf(stderr, "loop: %s=%s is not allowed (an integer of at least %ld)\n", what,
              i < argc ? argv[i] : "(missing)", least);
    MPI_Finalize();
    exit(2);
  }
  return v;
}

/* Sweeps that take `ms` alone on this rank, agreed as the largest count over ranks. The
 * fastest of five timings of the whole `ms` sets the count: one timing taken while
 * something else had the core (MPI's start-up, a progress thread's first passes) would
 * shorten the computation of every iteration, by a fifth and more on a shared node. */
static long calibrate(double ms) {
  long sweeps = 1;
  double t = 0;
  for (;;) {
    const double t0 = MPI_Wtime();
    sink += compute(sweeps);
    t = (MPI_Wtime() - t0) * 1e3;
    if (t >= ms / 4) break;
    sweeps *= 2;
  }
  sweeps = (long)((double)sweeps * ms / t + 0.5);
  if (sweeps < 1) sweeps = 1;
  double fastest = 0;
  for (int k = 0; k < 5; ++k) {
    const double t0 = MPI_Wtime();
    sink += compute(sweeps);
    t = (MPI_Wtime() - t0) * 1e3;
    if (k == 0 || t < fastest) fastest = t;
  }
  sweeps = (long)((double)sweeps * ms / fastest + 0.5);
  if (sweeps < 1) sweeps = 1;
  MPI_Allreduce(MPI_IN_PLACE, &sweeps, 1, MPI_LONG, MPI_MAX, MPI_COMM_WORLD);
  return sweeps;
}

/* A message from the left neighbour came rightward; tags as overlap-bench's halo uses. */
enum { TAG_RIGHTWARD = 0x4a10, TAG_LEFTWARD = 0x4a11 };

/* The halo loop: BYTES to and from each ring neighbour per iteration; every byte received
 * is checked against the sender's pattern. Returns 1 when all arrived right. */
static int halo_loop(long bytes, long sweeps, long warmup, long iterations, double* elapsed) {
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int left = (rank + size - 1) % size, right = (rank + 1) % size;
  unsigned char* send = malloc(2 * (size_t)bytes);
  unsigned char* recv = malloc(2 * (size_t)bytes);
  if (send == NULL || recv == NULL) {
    fprintf(stderr, "loop: out of memory\n");
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  for (long i = 0; i < 2 * bytes; ++i) send[i] = (unsigned char)(rank * 31 + i % 251);
  double t0 = 0;
  for (long it = -warmup; it < iterations; ++it) {
    if (it == 0) {
      MPI_Barrier(MPI_COMM_WORLD);
      t0 = MPI_Wtime();
    }
    MPI_Request r[4];
    MPI_Status st[4]; /* not MPI_STATUSES_IGNORE: GCC 12 warns on it with MPICH's header */
    MPI_Irecv(recv, (int)bytes, MPI_BYTE, left, TAG_RIGHTWARD, MPI_COMM_WORLD, &r[0]);
    MPI_Irecv(recv + bytes, (int)bytes, MPI_BYTE, right, TAG_LEFTWARD, MPI_COMM_WORLD, &r[1]);
    MPI_Isend(send, (int)bytes, MPI_BYTE, right, TAG_RIGHTWARD, MPI_COMM_WORLD, &r[2]);
    MPI_Isend(send + bytes, (int)bytes, MPI_BYTE, left, TAG_LEFTWARD, MPI_COMM_WORLD, &r[3]);
    sink += compute(sweeps);
    MPI_Waitall(4, r, st);
  }
  *elapsed = MPI_Wtime() - t0;
  int ok = 1;
  for (long i = 0; i < bytes; ++i) {
    ok &= recv[i] == (unsigned char)(left * 31 + i % 251);
    ok &= recv[bytes + i] == (unsigned char)(right * 31 + (bytes + i) % 251);
  }
  MPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  free(send);
  free(recv);
  return ok;
}

int main(int argc, char** argv) {
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
#ifdef LOOP_LIBOVERLAP
  if (OVX_Init(OVX_PROGRESS_DEFAULT) != MPI_SUCCESS) MPI_Abort(MPI_COMM_WORLD, 1);
#endif
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const long bytes = arg(argc, argv, 1, 8, "BYTES");
  const long comp_ms = arg(argc, argv, 2, 1, "COMP_MS");
  const long iterations = arg(argc, argv, 3, 1, "ITERATIONS");
  const int halo = argc > 4 && strcmp(argv[4], "halo") == 0;
  if (argc > 5 || (argc > 4 && !halo)) {
    if (rank == 0)
      fprintf(stderr, "loop: '%s' is not allowed after ITERATIONS (only: halo)\n",
              argv[argc > 5 ? 5 : 4]);
    MPI_Finalize();
    return 2;
  }
  const long warmup = iterations / 10 + 1;
  for (int i = 0; i < KERNEL_DOUBLES; ++i) kernel[i] = 1.0 + i * 1e-6;
  if (halo) {
    const long sweeps = calibrate((double)comp_ms);
    double elapsed = 0;
    const int ok = halo_loop(bytes, sweeps, warmup, iterations, &elapsed);
    MPI_Allreduce(MPI_IN_PLACE, &elapsed, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    if (rank == 0) {
      printf("halo %ld B to and from each of 2 neighbours, %d ranks, computation %ld ms "
             "(%ld sweeps), %ld iterations\n",
             bytes, size, comp_ms, sweeps, iterations);
      printf("time per iteration %.3f ms\n", elapsed / (double)iterations * 1e3);
      printf("result %s\n", ok ? "ok" : "WRONG");
    }
#ifdef LOOP_LIBOVERLAP
    OVX_Finalize();
#endif
    MPI_Finalize();
    return 0;
  }
  const long count = bytes / 8;
  double* in = malloc((size_t)count * sizeof(double));
  double* out = malloc((size_t)count * sizeof(double));
  if (in == NULL || out == NULL) {
    fprintf(stderr, "loop: out of memory\n");
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  for (long i = 0; i < count; ++i) in[i] = (double)(rank + 1) * (double)(i % 7);
  const long sweeps = calibrate((double)comp_ms);
  double t0 = 0;
  for (long it = -warmup; it < iterations; ++it) {
    if (it == 0) {
      MPI_Barrier(MPI_COMM_WORLD);
      t0 = MPI_Wtime();
    }
    MPI_Request request;
    IALLREDUCE(in, out, (int)count, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, &request);
    sink += compute(sweeps);
    MPI_Wait(&request, MPI_STATUS_IGNORE);
  }
  double elapsed = MPI_Wtime() - t0;
  MPI_Allreduce(MPI_IN_PLACE, &elapsed, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  /* The sum of every rank's (rank + 1) times i % 7, the reduction's known answer. */
  const double expect = (double)size * (size + 1) / 2 * (double)((count - 1) % 7);
  if (rank == 0) {
    printf("loop %ld B per rank, %d ranks, computation %ld ms (%ld sweeps), %ld iterations\n",
           bytes, size, comp_ms, sweeps, iterations);
#ifdef LOOP_LIBOVERLAP
    OVX_Progress policy = OVX_PROGRESS_DEFAULT;
    OVX_Get_progress(&policy);
    printf("liboverlap's OVX_Iallreduce, progress %s\n", OVX_Progress_name(policy));
#endif
    printf("time per iteration %.3f ms\n", elapsed / (double)iterations * 1e3);
    printf("result %s\n", out[count - 1] == expect ? "ok" : "WRONG");
  }
  free(in);
  free(out);
#ifdef LOOP_LIBOVERLAP
  OVX_Finalize();
#endif
  MPI_Finalize();
  return 0;
}
