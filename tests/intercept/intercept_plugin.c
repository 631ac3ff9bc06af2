/* MPI inside a module a host program loads with dlopen(RTLD_LOCAL), the way Python loads
 * an extension module (mpi4py, f2py): libmpi comes in as the module's dependency, in its
 * local scope, where the preloaded shim's dlsym(RTLD_NEXT) cannot see it (overlap-run
 * crashed in MPI_Init there until the shim looked MPI up library by library).
 *   built twice: as the module (OVERLAP_PLUGIN_MODULE defined: run()) and as the host,
 *   which links no MPI: intercept-plugin-host MODULE_PATH
 * The module's ranks exchange 1 MiB in a ring with MPI_Sendrecv and print a checksum. */
#ifdef OVERLAP_PLUGIN_MODULE
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int run(void) {
  int provided, rank, size;
  MPI_Init_thread(NULL, NULL, MPI_THREAD_SINGLE, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  enum { N = 1 << 18 };
  int* out = malloc(N * sizeof(int));
  int* in = malloc(N * sizeof(int));
  for (int i = 0; i < N; ++i) out[i] = rank * 1000 + i % 1000;
  MPI_Sendrecv(out, N, MPI_INT, (rank + 1) % size, 0, in, N, MPI_INT, (rank + size - 1) % size,
               0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  long sum = 0;
  for (int i = 0; i < N; ++i) sum += in[i];
  printf("rank %d got %ld\n", rank, sum);
  free(out);
  free(in);
  return MPI_Finalize();
}
#else
#include <dlfcn.h>
#include <stdio.h>

int main(int argc, char** argv) {
  if (argc < 2) return 2;
  void* module = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
  if (module == NULL) {
    fprintf(stderr, "dlopen: %s\n", dlerror());
    return 1;
  }
  int (*run)(void) = (int (*)(void))dlsym(module, "run");
  return run != NULL ? run() : 1;
}
#endif
