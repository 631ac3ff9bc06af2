/* MPICH 4.0 without liboverlap: MPI_Comm_idup of a one-process communicator while other
 * threads split a communicator of every rank. See README.md here.
 *
 *   mpicc.mpich -O2 -o idup_self idup_self.c -lpthread
 *   mpiexec.mpich -n 3 ./idup_self MODE [SPLITTERS DUPERS SPLITS]
 *
 * MODE idup:     each duper thread loops MPI_Comm_idup(MPI_COMM_SELF) + MPI_Wait + free
 *      blocking: the same with MPI_Comm_dup(MPI_COMM_SELF)
 *      pair:     MPI_Comm_idup of a two-process communicator (run with -n 4), 20000 each
 * Each splitter thread splits its own duplicate of MPI_COMM_WORLD SPLITS times (default
 * 2 splitters, 2 dupers, 3000 splits). A watcher prints progress every 5 s and ends the
 * process (exit 3, "BLOWUP") when its resident memory passes 800 MB. */
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

enum { kMaxThreads = 4 };
static MPI_Comm wdup[kMaxThreads], pair[kMaxThreads];
static volatile int stop = 0;
static int blocking = 0, pairmode = 0, splits = 3000, rank = 0;
static volatile long nsplit = 0, ndup = 0;

static long rss_mb(void) {
  FILE* f = fopen("/proc/self/statm", "r");
  long size = 0, resident = 0;
  if (f == NULL || fscanf(f, "%ld %ld", &size, &resident) != 2) resident = 0;
  if (f != NULL) fclose(f);
  return resident * sysconf(_SC_PAGESIZE) / 1048576;
}

static void* splitter(void* arg) {
  MPI_Comm w = wdup[(long)arg];
  for (int i = 0; i < splits; ++i) {
    MPI_Comm c;
    MPI_Comm_split(w, rank % 2, 0, &c);
    MPI_Comm_free(&c);
    __sync_fetch_and_add(&nsplit, 1);
  }
  return NULL;
}

static void* duper(void* arg) {
  MPI_Comm base = pairmode ? pair[(long)arg] : MPI_COMM_SELF;
  long n = 0;
  while (pairmode ? n < 20000 : !stop) {
    MPI_Comm c;
    MPI_Request r;
    if (blocking) {
      MPI_Comm_dup(base, &c);
    } else {
      MPI_Comm_idup(base, &c, &r);
      MPI_Wait(&r, MPI_STATUS_IGNORE);
    }
    MPI_Comm_free(&c);
    ++n;
    __sync_fetch_and_add(&ndup, 1);
  }
  return (void*)n;
}

static void* watcher(void* arg) {
  (void)arg;
  for (int k = 1; !stop; ++k) {
    const long m = rss_mb();
    if (m > 800) {
      printf("rank %d: RSS %ld MB: BLOWUP\n", rank, m);
      fflush(stdout);
      _exit(3);
    }
    if (k % 500 == 0) {
      printf("rank %d t=%ds splits %ld dups %ld RSS %ld MB\n", rank, k / 100, nsplit, ndup, m);
      fflush(stdout);
    }
    struct timespec ts = {0, 10000000};
    nanosleep(&ts, NULL);
  }
  return NULL;
}

int main(int argc, char** argv) {
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  if (argc < 2) {
    fprintf(stderr, "usage: idup_self idup|blocking|pair [SPLITTERS DUPERS SPLITS]\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  blocking = strcmp(argv[1], "blocking") == 0;
  pairmode = strcmp(argv[1], "pair") == 0;
  const int ns = argc > 2 ? atoi(argv[2]) : 2, nd = argc > 3 ? atoi(argv[3]) : 2;
  if (argc > 4) splits = atoi(argv[4]);
  if (ns < 1 || ns > kMaxThreads || nd < 1 || nd > kMaxThreads || splits < 1) {
    fprintf(stderr, "idup_self: 1..4 splitters and dupers, splits >= 1\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  for (int i = 0; i < ns; ++i) MPI_Comm_dup(MPI_COMM_WORLD, &wdup[i]);
  for (int i = 0; i < nd; ++i) MPI_Comm_split(MPI_COMM_WORLD, rank / 2, 0, &pair[i]);
  pthread_t s[kMaxThreads], d[kMaxThreads], w;
  pthread_create(&w, NULL, watcher, NULL);
  for (long i = 0; i < nd; ++i) pthread_create(&d[i], NULL, duper, (void*)i);
  for (long i = 0; i < ns; ++i) pthread_create(&s[i], NULL, splitter, (void*)i);
  for (int i = 0; i < ns; ++i) pthread_join(s[i], NULL);
  if (!pairmode) stop = 1;
  long n = 0;
  for (int i = 0; i < nd; ++i) {
    void* r;
    pthread_join(d[i], &r);
    n += (long)r;
  }
  stop = 1;
  pthread_join(w, NULL);
  printf("rank %d: %ld dups, RSS %ld MB\n", rank, n, rss_mb());
  for (int i = 0; i < ns; ++i) MPI_Comm_free(&wdup[i]);
  for (int i = 0; i < nd; ++i) MPI_Comm_free(&pair[i]);
  MPI_Finalize();
  return 0;
}
