// Open MPI: liboverlap's hidden duplicate of a communicator is made inside the call that
// makes the communicator, where every member is present, instead of by an MPI_Comm_idup at
// the communicator's first liboverlap collective.
//
// Why: Open MPI 4.1 lets the pending context-id agreement with the lowest parent id go
// first, process-wide (ompi_comm_cid_lowest_id in comm_cid.c). While our MPI_Comm_idup of
// a communicator waits for the ranks that have not made their first liboverlap call on
// it, this rank's own MPI_Comm_split, MPI_Comm_dup (even of MPI_COMM_SELF) and
// MPI_Comm_free wait too; a valid program whose other ranks make that first call only
// after a message sent after the creation hangs (docs/results/creation-twins-2026-11-30).
// A duplicate made inside the creation call leaves nothing pending.
//
// How: through MPI's profiling interface, as liboverlap's MPI_Finalize (progress/
// mpi_finalize.cpp); programs pick these definitions up by linking liboverlap before the
// MPI library, which the CMake package, pkg-config file and compiler wrappers do. Each
// calls the next definition (a tool of the program's own that interposes the same call
// still sees it) and then makes the duplicate: MPI_Comm_split of the new communicator (no
// attribute copy callbacks run), then an allreduce in which every member says it has one;
// any "no" (no room: at most kMaxDuplicates alive; MPI out of context ids) takes it back
// everywhere and the communicator keeps the first-use MPI_Comm_idup. So does every
// communicator made elsewhere: by MPI_Comm_idup, through Fortran (Open MPI's Fortran
// bindings call PMPI_ functions), by a program that links MPI first, and everything under
// overlap-run, whose preloaded shim makes its own duplicates inside the same calls
// (calls/collective_routes.cpp). MPICH is left to the first-use MPI_Comm_idup: it does not
// make other creations wait, and its context ids are few (about 2048).
#include <mpi.h>

#if defined(OPEN_MPI)

#include <dlfcn.h>

#include <string>

#include "collectives/comm_context.hpp"
#include "progress/engine_runtime.hpp"

namespace overlap::collectives {
namespace {

// Hidden duplicates alive at once (each takes one of Open MPI's context ids).
constexpr std::size_t kMaxDuplicates = 1024;

// Not under overlap-run (its shim exports overlap_intercept_loaded and makes the
// duplicates itself), MPI running.
bool making_duplicates() {
  static const bool shim = dlsym(RTLD_DEFAULT, "overlap_intercept_loaded") != nullptr;
  if (shim) return false;
  int finalized = 0;
  PMPI_Finalized(&finalized);
  return finalized == 0 && !progress::mpi_finalizing();
}

// MPI_ERRORS_RETURN on a communicator for a scope (MPI out of context ids is a "no",
// not an abort); the handler before it comes back.
class ErrorsReturn {
 public:
  explicit ErrorsReturn(MPI_Comm comm) : comm_(comm) {
    PMPI_Comm_get_errhandler(comm_, &saved_);
    PMPI_Comm_set_errhandler(comm_, MPI_ERRORS_RETURN);
  }
  ~ErrorsReturn() {
    PMPI_Comm_set_errhandler(comm_, saved_);
    if (saved_ != MPI_ERRHANDLER_NULL) PMPI_Errhandler_free(&saved_);
  }
  ErrorsReturn(const ErrorsReturn&) = delete;
  ErrorsReturn& operator=(const ErrorsReturn&) = delete;

 private:
  MPI_Comm comm_;
  MPI_Errhandler saved_ = MPI_ERRHANDLER_NULL;
};

bool is_inter(MPI_Comm comm) {
  int inter = 0;
  return PMPI_Comm_test_inter(comm, &inter) != MPI_SUCCESS || inter != 0;
}

// The rank in `parent` of `comm`'s rank 0: the same on every member of `comm`, different
// for each communicator one call makes.
int parent_rank_of_first(MPI_Comm comm, MPI_Comm parent) {
  MPI_Group group = MPI_GROUP_NULL, parent_group = MPI_GROUP_NULL;
  PMPI_Comm_group(comm, &group);
  PMPI_Comm_group(parent, &parent_group);
  const int first = 0;
  int in_parent = MPI_UNDEFINED;
  PMPI_Group_translate_ranks(group, 1, &first, parent_group, &in_parent);
  PMPI_Group_free(&group);
  PMPI_Group_free(&parent_group);
  return in_parent;
}

// The duplicate of `comm` (MPI_COMM_NULL on a rank the call gave none), made by a split
// of `parent`, the communicator the call was collective over, on every member of it, so
// that Open MPI orders its context-id agreement exactly as the program's own call's; or,
// where only `comm`'s members are in the call (`parent` MPI_COMM_NULL), by a split of
// `comm`. Then `comm`'s members agree that each has it; otherwise none keeps it.
void make_duplicate(MPI_Comm parent, MPI_Comm comm) {
  int size = 0, rank = 0;
  const bool member = comm != MPI_COMM_NULL && !is_inter(comm);
  if (member) {
    PMPI_Comm_size(comm, &size);
    PMPI_Comm_rank(comm, &rank);
  }
  // No duplicate for one process (comm_context.cpp). A member without room leaves the
  // split: the others then get a smaller communicator, which they do not keep.
  const bool wanted = member && size >= 2 && contexts_alive() < kMaxDuplicates;
  const MPI_Comm over = parent != MPI_COMM_NULL ? parent : comm;
  if (over == MPI_COMM_NULL || is_inter(over)) return;
  int over_size = 0;
  PMPI_Comm_size(over, &over_size);
  if (over_size < 2 || (parent == MPI_COMM_NULL && !(member && size >= 2))) return;
  const int color = !wanted                   ? MPI_UNDEFINED
                    : parent != MPI_COMM_NULL ? parent_rank_of_first(comm, parent)
                                              : 0;
  MPI_Comm dup = MPI_COMM_NULL;
  int have = 0;
  {
    ErrorsReturn quiet(over);
    have = PMPI_Comm_split(over, color, rank, &dup) == MPI_SUCCESS && dup != MPI_COMM_NULL;
  }
  if (!member || size < 2) {
    if (dup != MPI_COMM_NULL) PMPI_Comm_free(&dup);
    return;
  }
  int dup_size = 0;
  if (have) PMPI_Comm_size(dup, &dup_size);
  std::string error;
  if (have && (dup_size != size || !context_for(comm, dup, error))) have = 0;
  int everyone = 0;
  {
    ErrorsReturn quiet(comm);
    if (PMPI_Allreduce(&have, &everyone, 1, MPI_INT, MPI_MIN, comm) != MPI_SUCCESS) everyone = 0;
  }
  if (have && !everyone) {
    drop_context(comm);
    progress::safe_point();  // frees its duplicate
  } else if (!have && dup != MPI_COMM_NULL) {
    PMPI_Comm_free(&dup);
  }
}

// After a call collective over `parent` (MPI_COMM_NULL: over the new communicator's
// members only) that made `*newcomm` on this rank (or MPI_COMM_NULL).
void made(MPI_Comm parent, const MPI_Comm* newcomm, int rc) {
  if (rc == MPI_SUCCESS && newcomm != nullptr && making_duplicates())
    make_duplicate(parent, *newcomm);
}

// The definition after liboverlap's (MPI's, or a tool's), else MPI's PMPI_ one.
template <class F>
F next(const char* name, F pmpi) {
  void* f = dlsym(RTLD_NEXT, name);
  return f != nullptr ? reinterpret_cast<F>(f) : pmpi;
}

}  // namespace
}  // namespace overlap::collectives

using overlap::collectives::made;
using overlap::collectives::making_duplicates;
using overlap::collectives::next;

// One definition per call that makes an intracommunicator: the next definition, then the
// duplicate of what it made. `parent` names the communicator the call is collective over
// (MPI_COMM_NULL: only the new communicator's members call it), `out` the new one.
#define OVX_MAKES_COMM(name, params, args, parent, out) \
  extern "C" int name params {                          \
    static const auto f = next(#name, &P##name);        \
    const int rc = f args;                              \
    made(parent, out, rc);                              \
    return rc;                                          \
  }

OVX_MAKES_COMM(MPI_Comm_dup, (MPI_Comm comm, MPI_Comm* newcomm), (comm, newcomm), comm, newcomm)
OVX_MAKES_COMM(MPI_Comm_dup_with_info, (MPI_Comm comm, MPI_Info info, MPI_Comm* newcomm),
               (comm, info, newcomm), comm, newcomm)
OVX_MAKES_COMM(MPI_Comm_split, (MPI_Comm comm, int color, int key, MPI_Comm* newcomm),
               (comm, color, key, newcomm), comm, newcomm)
OVX_MAKES_COMM(MPI_Comm_split_type,
               (MPI_Comm comm, int split_type, int key, MPI_Info info, MPI_Comm* newcomm),
               (comm, split_type, key, info, newcomm), comm, newcomm)
OVX_MAKES_COMM(MPI_Comm_create, (MPI_Comm comm, MPI_Group group, MPI_Comm* newcomm),
               (comm, group, newcomm), comm, newcomm)
OVX_MAKES_COMM(MPI_Comm_create_group, (MPI_Comm comm, MPI_Group group, int tag, MPI_Comm* newcomm),
               (comm, group, tag, newcomm), MPI_COMM_NULL, newcomm)
OVX_MAKES_COMM(MPI_Cart_create,
               (MPI_Comm old_comm, int ndims, const int dims[], const int periods[], int reorder,
                MPI_Comm* comm_cart),
               (old_comm, ndims, dims, periods, reorder, comm_cart), old_comm, comm_cart)
OVX_MAKES_COMM(MPI_Cart_sub, (MPI_Comm comm, const int remain_dims[], MPI_Comm* new_comm),
               (comm, remain_dims, new_comm), comm, new_comm)
OVX_MAKES_COMM(MPI_Graph_create,
               (MPI_Comm comm_old, int nnodes, const int index[], const int edges[], int reorder,
                MPI_Comm* comm_graph),
               (comm_old, nnodes, index, edges, reorder, comm_graph), comm_old, comm_graph)
OVX_MAKES_COMM(MPI_Dist_graph_create,
               (MPI_Comm comm_old, int n, const int nodes[], const int degrees[],
                const int targets[], const int weights[], MPI_Info info, int reorder,
                MPI_Comm* newcomm),
               (comm_old, n, nodes, degrees, targets, weights, info, reorder, newcomm), comm_old,
               newcomm)
OVX_MAKES_COMM(MPI_Dist_graph_create_adjacent,
               (MPI_Comm comm_old, int indegree, const int sources[], const int sourceweights[],
                int outdegree, const int destinations[], const int destweights[], MPI_Info info,
                int reorder, MPI_Comm* newcomm),
               (comm_old, indegree, sources, sourceweights, outdegree, destinations, destweights,
                info, reorder, newcomm),
               comm_old, newcomm)
OVX_MAKES_COMM(MPI_Intercomm_merge, (MPI_Comm intercomm, int high, MPI_Comm* newcomm),
               (intercomm, high, newcomm), MPI_COMM_NULL, newcomm)
#undef OVX_MAKES_COMM

// MPI_COMM_WORLD's duplicate, made inside MPI_Init where every process is.
extern "C" int MPI_Init(int* argc, char*** argv) {
  static const auto f = next("MPI_Init", &PMPI_Init);
  const int rc = f(argc, argv);
  const MPI_Comm world = MPI_COMM_WORLD;
  made(MPI_COMM_NULL, &world, rc);
  return rc;
}

extern "C" int MPI_Init_thread(int* argc, char*** argv, int required, int* provided) {
  static const auto f = next("MPI_Init_thread", &PMPI_Init_thread);
  const int rc = f(argc, argv, required, provided);
  const MPI_Comm world = MPI_COMM_WORLD;
  made(MPI_COMM_NULL, &world, rc);
  return rc;
}

// The program freed a communicator: its duplicate goes now if nothing runs on it (else
// at a later safe point), so a program that makes and frees communicators without ever
// calling liboverlap does not pile them up.
#define OVX_FREES_COMM(name)                                  \
  extern "C" int name(MPI_Comm* comm) {                       \
    static const auto f = next(#name, &P##name);              \
    const int rc = f(comm);                                   \
    if (making_duplicates()) overlap::progress::safe_point(); \
    return rc;                                                \
  }
OVX_FREES_COMM(MPI_Comm_free)
OVX_FREES_COMM(MPI_Comm_disconnect)
#undef OVX_FREES_COMM

#endif  // OPEN_MPI
