/* liboverlap: nonblocking collectives that progress while the application computes.
 *
 * Each OVX_I* call mirrors its MPI_I* counterpart and hands back a real MPI request
 * (a generalized request), so MPI_Wait, MPI_Test and MPI_Waitall work on any mix of
 * these requests and ordinary MPI requests. A progress engine drives the collectives:
 *   OVX_PROGRESS_CALLER     no thread of its own; progress happens inside MPI calls
 *                           (with MPICH, which calls liboverlap only from MPI_Test/
 *                           MPI_Wait on its requests, a rescue thread steps in when
 *                           nothing progressed for OVERLAP_CALLER_RESCUE_MS, 100 ms)
 *   OVX_PROGRESS_SHARED     a thread that polls gently (adaptive back-off and sleeps),
 *                           for nodes where computation uses every core
 *   OVX_PROGRESS_DEDICATED  a thread bound to a core the computation leaves free,
 *                           polling continuously while collectives are in flight
 * OVX_PROGRESS_DEFAULT reads the environment variable OVERLAP_PROGRESS
 * (auto|caller|shared|dedicated), else uses auto: dedicated where this rank has a core its
 * program's threads leave free, else shared; caller where MPICH runs its own progress
 * thread (MPICH_ASYNC_PROGRESS=1). OVERLAP_VERBOSE=1 prints the choice and why once, and
 * OVX_Progress_reason says it. The dedicated core is the last core of
 * the process's CPU set unless OVERLAP_PROGRESS_CORE names another (0-based index
 * within the set).
 *
 * Call OVX_Init after MPI_Init_thread (thread policies need MPI_THREAD_MULTIPLE;
 * liboverlap never initialises MPI); a collective called first initializes with
 * OVX_PROGRESS_DEFAULT. OVX_Finalize ends the application's use: requests already handed
 * out stay valid and complete, and further collectives need OVX_Init again. MPI_Finalize
 * shuts everything down (collectives still in flight then are abandoned, with a message).
 * Errors are reported like MPI reports them: the communicator's error handler is called
 * with a code whose MPI_Error_string says what was refused and why. MPI_Cancel on a
 * liboverlap request is refused; MPI_Request_free is accepted (the collective completes
 * in the background) but erroneous for a collective, and reported on stderr.
 */
#ifndef OVERLAP_OVERLAP_H
#define OVERLAP_OVERLAP_H

#include <mpi.h>

#include "overlap/overlap_config.h"

#if OVX_BUILT_WITH_OPEN_MPI && !defined(OPEN_MPI)
#error \
    "liboverlap was built with Open MPI but this <mpi.h> belongs to another MPI library: compile with Open MPI's wrapper (mpicc.openmpi), CMake's find_package(Overlap), or pkg-config --cflags overlap"
#endif
#if OVX_BUILT_WITH_MPICH && !defined(MPICH)
#error \
    "liboverlap was built with MPICH but this <mpi.h> belongs to another MPI library: compile with MPICH's wrapper (mpicc.mpich), CMake's find_package(Overlap), or pkg-config --cflags overlap"
#endif

#ifdef __cplusplus
extern "C" {
#endif

typedef enum OVX_Progress {
  OVX_PROGRESS_DEFAULT = 0,
  OVX_PROGRESS_CALLER = 1,
  OVX_PROGRESS_SHARED = 2,
  OVX_PROGRESS_DEDICATED = 3
} OVX_Progress;

int OVX_Init(OVX_Progress policy);
int OVX_Finalize(void);
int OVX_Initialized(int* flag);
/* The policy in use (never OVX_PROGRESS_DEFAULT once initialized). */
int OVX_Get_progress(OVX_Progress* policy);
/* One progress pass from the calling thread; *work counts tasks started or finished. */
int OVX_Poll(int* work);
/* "caller", "shared", "dedicated" or "default". */
const char* OVX_Progress_name(OVX_Progress policy);
/* Why the running engine has its policy, in one line (who asked for it, or what `auto`
 * saw: the cores of this rank's CPU set, the ranks sharing them, the program's threads);
 * NULL when liboverlap is not initialised. Valid until the calling thread's next call. */
const char* OVX_Progress_reason(void);
/* What `auto` chooses in this process for a program that runs `threads` computation
 * threads (0: unknown, then OpenMP's omp_get_max_threads() where OpenMP is loaded, else
 * 1), `leave_core` != 0 when the user asked for a core to be left to progress. Sets
 * *policy (caller, shared or dedicated) and *reason (valid until the calling thread's next
 * call; may be NULL). Local, no MPI call: may be called before MPI_Init. */
int OVX_Progress_choose(int threads, int leave_core, OVX_Progress* policy, const char** reason);
/* The algorithm liboverlap's collective `collective` ("bcast", "reduce", "allreduce",
 * "allgather", "alltoall", "gather", "scatter", "reduce_scatter_block", "barrier") runs on
 * `size` ranks for `bytes` bytes of `count` elements (the vector of a reduction, one rank's
 * block of the others, the buffer of bcast), as the cost model chooses it or
 * OVERLAP_ALGORITHMS forces it: a static string ("recursive_doubling", "ring", ...),
 * "local" on one rank, "none" without data; NULL for an unknown collective, a bad
 * argument or a malformed OVERLAP_ALGORITHMS. With the calibrated cost model (OVX_Calibrate)
 * for communicators within MPI_COMM_WORLD; those reaching outside it use the built-in one.
 * Local, no MPI call. */
const char* OVX_Algorithm(const char* collective, MPI_Count bytes, MPI_Count count, int size);
/* Measures the cost model's parameters (a message's latency, a link's bandwidth) and makes
 * every process use the same ones: collective over MPI_COMM_WORLD, blocking, before the
 * process's first liboverlap collective (each process then chooses algorithms as every
 * other does; about 30 ms on a 1 Gbit/s network). Ranks r and r + P/2 ping-pong; the
 * processes agree on the largest latency and the smallest bandwidth measured.
 * OVERLAP_COST_MODEL=latency=5us,bandwidth=10GB/s gives values instead of measuring
 * ("default": the built-in ones). Fails on every process, changing nothing, when any
 * process already called a liboverlap collective or OVERLAP_COST_MODEL is malformed. No
 * other thread may call a liboverlap collective meanwhile (as with any collective, the
 * order of collectives across threads is the program's to keep the same on every rank).
 * Without it, liboverlap uses its defaults; overlap-run calibrates inside MPI_Init. */
int OVX_Calibrate(void);
/* The parameters in use (any pointer may be NULL): latency in seconds, bandwidth in bytes
 * per second, and where they come from: "measured", "OVERLAP_COST_MODEL" or "default".
 * Communicators reaching outside MPI_COMM_WORLD (MPI_Comm_spawn, MPI_Comm_connect) use the
 * defaults. Local, no MPI call. */
int OVX_Get_cost_model(double* latency_seconds, double* bytes_per_second, const char** source);
/* Gives up a collective without waiting for it to complete (error paths, e.g. C++
 * exception unwinding, where waiting could hang): its receives are cancelled, and it
 * returns once they are gone (a receive already matched finishes instead; at most 10 s),
 * so nothing writes its buffers any more; sends already handed to MPI may still read
 * theirs until they finish.
 * Frees the request (*request becomes MPI_REQUEST_NULL). Like abandoning any collective
 * in MPI, it leaves the other ranks' side undefined: later collectives on the
 * communicator are undefined too. Returns MPI_ERR_REQUEST, calling no error handler and
 * touching nothing, when *request is not a pending liboverlap collective's. */
int OVX_Request_abandon(MPI_Request* request);

/* Point-to-point progress. MPI moves an application's own MPI_Isend/MPI_Irecv... only
 * while some thread is inside an MPI call. From OVX_Progress_begin to OVX_Progress_end
 * the engine keeps passing as if a collective were in flight, and each pass calls into
 * MPI (one MPI_Iprobe that matches nothing), so those operations move while the
 * application computes: shared and dedicated with their thread; caller adds nothing with
 * Open MPI (progress stays inside the application's MPI calls), with MPICH its rescue
 * thread steps in after OVERLAP_CALLER_RESCUE_MS. The engine never sees the application's
 * requests: wait, test, free or cancel them as usual, before or after OVX_Progress_end.
 * Counted and thread-safe: each begin takes one end (an end without an open begin is an
 * error); begins still open at MPI_Finalize are dropped. Starts liboverlap with
 * OVX_PROGRESS_DEFAULT if needed, like a collective; a begin still open at OVX_Finalize
 * keeps the engine running until its end. */
int OVX_Progress_begin(void);
int OVX_Progress_end(void);

int OVX_Ibarrier(MPI_Comm comm, MPI_Request* request);
int OVX_Ibcast(void* buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm,
               MPI_Request* request);
int OVX_Ireduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                int root, MPI_Comm comm, MPI_Request* request);
int OVX_Iallreduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                   MPI_Comm comm, MPI_Request* request);
int OVX_Iallgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                   int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request);
int OVX_Ialltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                  int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request);
int OVX_Igather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                MPI_Request* request);
int OVX_Iscatter(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                 int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                 MPI_Request* request);
int OVX_Ireduce_scatter_block(const void* sendbuf, void* recvbuf, int recvcount,
                              MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                              MPI_Request* request);

/* Partitioned point-to-point (MPI-4 sec. 4.2 semantics over ordinary point-to-point, on
 * any MPI). Arguments mean what they mean for MPI_Psend_init/MPI_Precv_init (count is
 * per partition; the two sides may use different partition counts over the same total
 * bytes). Differences from MPI's own:
 *  - the persistent request is an OVX_Prequest; each epoch starts with OVX_Start/
 *    OVX_Startall, which hand back the epoch's MPI request, completed with MPI_Wait/
 *    MPI_Test (MPI_Start cannot start a request a layered library made);
 *  - contiguous datatypes only; tags 0..(a limit the error message names, 2^20 - 1 with a
 *    32-bit MPI_TAG_UB); the messages travel on the given communicator in the upper half of
 *    its tag space, so the application's own point-to-point there must use lower tags and
 *    no MPI_ANY_TAG receive or probe from that peer (nor MPI_ANY_SOURCE with MPI_ANY_TAG)
 *    from the peer's OVX_Psend_init until both sides freed their requests;
 *  - OVX_Pready from several threads at once needs MPI_THREAD_MULTIPLE.
 * A partition leaves as soon as it (with the partitions aggregated with it) is ready: the
 * thread that calls OVX_Pready posts it, and the progress engine moves it on. Aggregation
 * (MPI_Info key "overlap_aggregation", else environment variable OVERLAP_PART_AGGREGATION):
 * "none" (default), "count:K", "bytes:N", or "adaptive[:N]" (what is ready when a Pready
 * posts leaves together, runs of at most N bytes). */
typedef struct OVX_Prequest_s* OVX_Prequest;
#define OVX_PREQUEST_NULL ((OVX_Prequest)0)

int OVX_Psend_init(const void* buf, int partitions, MPI_Count count, MPI_Datatype datatype,
                   int dest, int tag, MPI_Comm comm, MPI_Info info, OVX_Prequest* request);
int OVX_Precv_init(void* buf, int partitions, MPI_Count count, MPI_Datatype datatype, int source,
                   int tag, MPI_Comm comm, MPI_Info info, OVX_Prequest* request);
/* Starts an epoch; *epoch is the MPI request that completes it. */
int OVX_Start(OVX_Prequest request, MPI_Request* epoch);
int OVX_Startall(int count, OVX_Prequest requests[], MPI_Request epochs[]);
int OVX_Pready(int partition, OVX_Prequest request);
int OVX_Pready_range(int partition_low, int partition_high, OVX_Prequest request);
int OVX_Pready_list(int length, const int partitions[], OVX_Prequest request);
/* *flag = 1 once the receiver's partition holds the data; true after the epoch completed. */
int OVX_Parrived(OVX_Prequest request, int partition, int* flag);
/* Frees an inactive request (*request becomes OVX_PREQUEST_NULL). */
int OVX_Prequest_free(OVX_Prequest* request);

#ifdef __cplusplus
}
#endif

#endif /* OVERLAP_OVERLAP_H */
