/* A program that starts MPI without the C library's MPI_Init or MPI_Init_thread never
 * loads the core, so nothing of it is intercepted: a library that calls PMPI_Init itself
 * and is not one of the Fortran bindings fortran_entry.c knows (docs/overlap-run.md, "When
 * nothing reaches overlap-run"). Silently
 * running such a program as if overlap-run had nothing to do misleads its user, so at exit
 * the first rank says so on stderr and, with --report, writes a report saying so (no
 * ranks, metadata.intercepted false). Processes that never started MPI (the launcher in
 * overlap-run's launcher form, shells) and --off stay silent. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

int overlap_intercept_loaded(void); /* preload_shim.c */
extern int ovx_init_seen;           /* preload_shim.c */

static const char kNote[] =
    "the program started MPI without calling MPI_Init or MPI_Init_thread of the C library, "
    "so none of its calls reached overlap-run and nothing was intercepted (it called MPI's "
    "PMPI_Init or an internal function directly, from a library overlap-run does not know "
    "as a Fortran binding)";

/* The launcher's name for this process's rank in MPI_COMM_WORLD, or NULL (a singleton). */
static const char* launcher_rank(void) {
  static const char* const names[] = {"OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK",
                                      "SLURM_PROCID"};
  for (size_t i = 0; i < sizeof names / sizeof names[0]; ++i) {
    const char* v = getenv(names[i]);
    if (v != NULL && *v != '\0') return v;
  }
  return NULL;
}

static const char* launcher_size(void) {
  static const char* const names[] = {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "SLURM_NTASKS"};
  for (size_t i = 0; i < sizeof names / sizeof names[0]; ++i) {
    const char* v = getenv(names[i]);
    if (v != NULL && *v != '\0' && strspn(v, "0123456789") == strlen(v)) return v;
  }
  return NULL;
}

/* Written like the core's report (a temporary file renamed into place). */
static void write_unreached_report(const char* path) {
  char tmp[PATH_MAX];
  if (snprintf(tmp, sizeof tmp, "%s.tmp", path) >= (int)sizeof tmp) return;
  FILE* f = fopen(tmp, "w");
  if (f == NULL) {
    fprintf(stderr, "overlap-run: cannot write the report %s\n", path);
    return;
  }
  char date[64] = "";
  const time_t now = time(NULL);
  struct tm utc;
  if (gmtime_r(&now, &utc) != NULL) strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", &utc);
  const char* size = launcher_size();
  fprintf(f,
          "{\n  \"schema_version\": 1,\n  \"benchmark\": \"overlap-run\",\n  \"metadata\": {\n"
          "    \"processes\": %s,\n    \"intercepted\": false,\n    \"note\": \"%s\",\n"
          "    \"date\": \"%s\"\n  },\n  \"ranks\": []\n}\n",
          size != NULL ? size : "null", kNote, date);
  const int failed = ferror(f) | fclose(f);
  if (failed || rename(tmp, path) != 0)
    fprintf(stderr, "overlap-run: cannot write the report %s\n", path);
}

__attribute__((destructor)) static void say_if_unreached(void) {
  /* The core ran (it reports), or MPI_Init came through the shim and a core that could
   * not load said why. */
  if (overlap_intercept_loaded() || ovx_init_seen) return;
  const char* enabled = getenv("OVERLAP_INTERCEPT");
  if (enabled != NULL && strcmp(enabled, "off") == 0) return;
  /* MPI_Initialized may be called at any time, also after MPI_Finalize. */
  int (*initialized)(int*) = (int (*)(int*))dlsym(RTLD_DEFAULT, "PMPI_Initialized");
  int started = 0;
  if (initialized == NULL || initialized(&started) != 0 || !started) return;
  const char* rank = launcher_rank();
  if (rank != NULL && strcmp(rank, "0") != 0) return;
  fprintf(stderr, "overlap-run: %s\n", kNote);
  const char* report = getenv("OVERLAP_INTERCEPT_REPORT");
  if (report != NULL && *report != '\0') write_unreached_report(report);
  fflush(stderr);
}
