/* MPI-4 partitioned communication with derived datatypes, as MPI runs it (MPICH): each side
 * of a pair draws its own datatype (contiguous, vectors with holes, a resized type whose
 * size equals its true extent but whose extent is larger, a typemap out of memory order)
 * and its own partition count, on MPI_COMM_WORLD (whose error handler aborts or returns
 * errors) or a duplicate, with tags below and above the part of the tag space liboverlap's
 * partitioned layer keeps for itself, and sometimes more partitions than the layer has
 * message tags.
 * Run plain and under overlap-run (check_partitioned.py types): the same data, every byte
 * (the elements and the holes between them) as MPI alone leaves it.
 *   intercept-partitioned-types SEED CASES
 * Rank 0 sends, rank 1 receives. Prints "rank R routable N" (the cases overlap-run routes:
 * on MPI_COMM_WORLD, with a tag the layer takes) and "rank R digest HEX". */
#define _GNU_SOURCE
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "case_support.h"

enum { INT1, CONTIG, VECTOR2, VECTOR4, RESIZED, PERMUTED, NSHAPES };

/* A type of *ints MPI_INTs per element. */
static MPI_Datatype shape_type(int shape, int* ints) {
  MPI_Datatype t, inner;
  int lens[2] = {1, 1};
  MPI_Aint disps[2] = {4, 0};
  MPI_Datatype types[2] = {MPI_INT, MPI_INT};
  switch (shape) {
    case INT1:
      *ints = 1;
      return MPI_INT;
    case CONTIG:
      MPI_Type_contiguous(3, MPI_INT, &t);
      *ints = 3;
      break;
    case VECTOR2: /* 4 ints, every other one */
      MPI_Type_vector(4, 1, 2, MPI_INT, &t);
      *ints = 4;
      break;
    case VECTOR4:
      MPI_Type_vector(2, 1, 4, MPI_INT, &t);
      *ints = 2;
      break;
    case RESIZED: /* 1 int, extent 8 ints: size = true extent < extent */
      MPI_Type_contiguous(1, MPI_INT, &inner);
      MPI_Type_create_resized(inner, 0, 8 * sizeof(int), &t);
      MPI_Type_free(&inner);
      *ints = 1;
      break;
    default: /* {int at 4, int at 0} */
      MPI_Type_create_struct(2, lens, disps, types, &t);
      *ints = 2;
  }
  MPI_Type_commit(&t);
  return t;
}

static size_t span_of(MPI_Datatype t, long long elements) {
  MPI_Aint lb, extent, true_lb, true_extent;
  MPI_Type_get_extent(t, &lb, &extent);
  MPI_Type_get_true_extent(t, &true_lb, &true_extent);
  return elements > 0 ? (size_t)((elements - 1) * extent + true_lb + true_extent) : 1;
}

static long long gcd(long long a, long long b) { return b == 0 ? a : gcd(b, a % b); }

/* What MPI itself leaves in (elements, t) at `out` when it receives `values`. */
static void mpi_reference(void* out, long long elements, MPI_Datatype t, const int* values,
                          long long n) {
  MPI_Request r[2];
  MPI_Irecv(out, (int)elements, t, 0, 1, MPI_COMM_SELF, &r[0]);
  MPI_Isend(values, (int)n, MPI_INT, 0, 1, MPI_COMM_SELF, &r[1]);
  MPI_Status statuses[2];
  MPI_Waitall(2, r, statuses);
}

static void one_case(uint64_t* rnd, int c, MPI_Comm dup, int* routable) {
  int sints, rints;
  const int sshape = (int)(next_random(rnd) % NSHAPES), rshape = (int)(next_random(rnd) % NSHAPES);
  MPI_Datatype st = shape_type(sshape, &sints), rt = shape_type(rshape, &rints);
  const int many = next_random(rnd) % 8 == 0; /* more partitions than the layer has tags */
  const int sp = many ? 5000 + (int)(next_random(rnd) % 200) : 1 + (int)(next_random(rnd) % 40);
  const int rp = 1 + (int)(next_random(rnd) % 40);
  const long long unit = sp * (long long)sints / gcd(sp * (long long)sints, rp * (long long)rints) *
                         rp * rints; /* total ints, divisible by both sides' partitions */
  const long long total = unit * (1 + (long long)(next_random(rnd) % (many ? 1 : 64)));
  const int high_tag = next_random(rnd) % 6 == 0;
  const int tag = high_tag ? (1 << 20) + 7 + c : 11 + c;
  /* overlap-run routes requests on MPI_COMM_WORLD whose tag its layer takes; its handler
   * aborts or returns errors. */
  const int on_dup = next_random(rnd) % 4 == 0;
  MPI_Comm comm = on_dup ? dup : MPI_COMM_WORLD;
  MPI_Comm_set_errhandler(MPI_COMM_WORLD,
                          next_random(rnd) % 2 ? MPI_ERRORS_RETURN : MPI_ERRORS_ARE_FATAL);
  const int epochs = 1 + (int)(next_random(rnd) % 2);
  if (!high_tag && !on_dup) ++*routable;
  if (rank == 0)
    printf("case %d: %d x %lld elements of shape %d -> %d x %lld of shape %d, %lld ints, tag %d\n",
           c, sp, total / sints / sp, sshape, rp, total / rints / rp, rshape, total, tag);
  MPI_Request req;
  if (rank == 0) {
    const long long per = total / sints / sp;
    const size_t len = span_of(st, total / sints);
    unsigned char* buf = malloc(len);
    const int rc = MPI_Psend_init(buf, sp, per, st, 1, tag, comm, MPI_INFO_NULL, &req);
    if (rc != MPI_SUCCESS) fail("types: MPI_Psend_init (rc, case)", rc, c);
    for (int e = 0; e < epochs; e++) {
      fill(buf, len, (uint64_t)c * 7 + (uint64_t)e, 1);
      MPI_Start(&req);
      for (int k = sp - 1; k >= 0; k--) MPI_Pready(k, req); /* last partition first */
      MPI_Wait(&req, MPI_STATUS_IGNORE);
    }
    MPI_Request_free(&req);
    free(buf);
  } else {
    const long long per = total / rints / rp;
    const size_t len = span_of(rt, total / rints), slen = span_of(st, total / sints);
    unsigned char* buf = malloc(len);
    unsigned char* want = malloc(len);
    unsigned char* model = malloc(slen);
    int* values = malloc((size_t)total * sizeof(int) + 1);
    const int rc = MPI_Precv_init(buf, rp, per, rt, 0, tag, comm, MPI_INFO_NULL, &req);
    if (rc != MPI_SUCCESS) fail("types: MPI_Precv_init (rc, case)", rc, c);
    for (int e = 0; e < epochs; e++) {
      fill(buf, len, (uint64_t)c * 7 + (uint64_t)e, 2);
      MPI_Start(&req);
      MPI_Status status;
      MPI_Wait(&req, &status);
      /* The sender's bytes, rebuilt, packed as MPI packs them; what MPI leaves here. */
      fill(model, slen, (uint64_t)c * 7 + (uint64_t)e, 1);
      int pos = 0;
      MPI_Pack(model, (int)(total / sints), st, values, (int)(total * (long long)sizeof(int)), &pos,
               MPI_COMM_SELF);
      fill(want, len, (uint64_t)c * 7 + (uint64_t)e, 2);
      mpi_reference(want, total / rints, rt, values, total);
      if (memcmp(want, buf, len) != 0) {
        size_t i = 0;
        while (want[i] == buf[i]) i++;
        fail("types: received bytes differ from MPI's own (byte, case)", (long)i, c);
      }
      int got = -1;
      MPI_Get_count(&status, rt, &got);
      if (got != (int)(total / rints)) fail("types: MPI_Get_count (got, case)", got, c);
      mix(buf, len);
    }
    MPI_Request_free(&req);
    free(values);
    free(model);
    free(want);
    free(buf);
  }
  if (st != MPI_INT) MPI_Type_free(&st);
  if (rt != MPI_INT) MPI_Type_free(&rt);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size != 2) fail("needs 2 ranks", size, 2);
  const uint64_t seed = argc > 1 ? strtoull(argv[1], NULL, 10) : 1;
  const int cases = argc > 2 ? atoi(argv[2]) : 20;
  MPI_Comm dup;
  MPI_Comm_dup(MPI_COMM_WORLD, &dup);
  uint64_t rnd = seed | 1;
  int routable = 0;
  for (int c = 0; c < cases; c++) one_case(&rnd, c, dup, &routable);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
  MPI_Comm_free(&dup);
  MPI_Barrier(MPI_COMM_WORLD);
  printf("rank %d routable %d\n", rank, routable);
  printf("rank %d digest %016llx\n", rank, (unsigned long long)digest);
  fflush(stdout);
  MPI_Finalize();
  return 0;
}
