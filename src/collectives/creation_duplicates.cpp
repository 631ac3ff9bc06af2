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
// calls the next definition (a tool of the program's own linked after liboverlap still
// sees the call) and then makes the duplicate with a call of the same context-id priority
// as the program's own, so that Open MPI makes it wait for nothing the program's call did
// not wait for: a split of the communicator the call was collective over (for the calls
// that have one; no attribute copy callbacks run), MPI_Comm_create_group with the
// program's tag, MPI_Intercomm_merge of the same intercommunicator. Then every member
// says in an allreduce that it has one; any "no" (no room: at most kMaxDuplicates alive;
// MPI out of context ids) takes it back everywhere and the communicator keeps the
// first-use MPI_Comm_idup. So does every communicator made elsewhere: by MPI_Comm_idup,
// through Fortran (Open MPI's Fortran bindings call PMPI_ functions), by a program that
// links MPI (or a tool of its own) before liboverlap. Under overlap-run, whose preloaded
// shim makes its own duplicates inside the same calls when it routes collectives
// (src/intercept/calls/collective_routes.cpp), the shim says so at MPI_Init
// (ovx_private_duplicates_at_creation) and these definitions only pass calls on. MPICH is
// left to the first-use MPI_Comm_idup: it does not make other creations wait, and its
// context ids are few (about 2048).
#include <mpi.h>

#if defined(OPEN_MPI)

#include <dlfcn.h>

#include <atomic>
#include <string>

#include "collectives/comm_context.hpp"
#include "progress/engine_runtime.hpp"

namespace overlap::collectives {
namespace {

// Hidden duplicates alive at once (each takes one of Open MPI's context ids).
constexpr std::size_t kMaxDuplicates = 1024;

// overlap-run's shim makes the duplicates (it says so at MPI_Init).
std::atomic<bool> shim_makes_them{false};

// Ours to make, MPI running.
bool making_duplicates() {
  if (shim_makes_them.load(std::memory_order_acquire)) return false;
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
  // Restores only over our own setting: another thread may have set its handler since.
  ~ErrorsReturn() {
    MPI_Errhandler now = MPI_ERRHANDLER_NULL;
    PMPI_Comm_get_errhandler(comm_, &now);
    if (now == MPI_ERRORS_RETURN) PMPI_Comm_set_errhandler(comm_, saved_);
    if (now != MPI_ERRHANDLER_NULL) PMPI_Errhandler_free(&now);
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

// Makes the duplicate of `comm` (MPI_COMM_NULL on a rank the call gave none) on every
// rank that was in the call that made it: `make(want, &dup)` does it with the call's
// context-id priority, every rank in that call taking part (`want` false: this rank keeps
// none, and where it can it does not take one). `errors_on`: the communicator that call
// reports on. Then `comm`'s members agree that each has it; otherwise none keeps it.
template <class Make>
void make_duplicate(MPI_Comm comm, MPI_Comm errors_on, Make make) {
  int size = 0, rank = 0;
  const bool member = comm != MPI_COMM_NULL && !is_inter(comm);
  if (member) {
    PMPI_Comm_size(comm, &size);
    PMPI_Comm_rank(comm, &rank);
  }
  // No duplicate for one process (comm_context.cpp).
  const bool wanted = member && size >= 2 && contexts_alive() < kMaxDuplicates;
  MPI_Comm dup = MPI_COMM_NULL;
  int have = 0;
  {
    ErrorsReturn quiet(errors_on);
    have = make(wanted, &dup) == MPI_SUCCESS && dup != MPI_COMM_NULL;
  }
  if (!member || size < 2) {
    if (dup != MPI_COMM_NULL) PMPI_Comm_free(&dup);
    return;
  }
  int dup_size = 0;
  if (have) PMPI_Comm_size(dup, &dup_size);
  std::string error;
  if (have && (!wanted || dup_size != size || !context_for(comm, dup, error))) have = 0;
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

// After a call collective over the intracommunicator `parent` that made `*newcomm` on
// this rank (or MPI_COMM_NULL): a split of `parent`, every rank of it taking part, into
// the same communicators (colour: the rank in `parent` of the new communicator's rank 0).
void made_from(MPI_Comm parent, const MPI_Comm* newcomm, int rc) {
  if (rc != MPI_SUCCESS || newcomm == nullptr || !making_duplicates() || is_inter(parent)) return;
  int parent_size = 0;
  PMPI_Comm_size(parent, &parent_size);
  if (parent_size < 2) return;
  const MPI_Comm comm = *newcomm;
  make_duplicate(comm, parent, [&](bool want, MPI_Comm* dup) {
    int rank = 0;
    if (want) PMPI_Comm_rank(comm, &rank);
    const int color = want ? parent_rank_of_first(comm, parent) : MPI_UNDEFINED;
    return PMPI_Comm_split(parent, color, rank, dup);
  });
}

// After a call only the new communicator's members make (`make` repeats it).
template <class Make>
void made_by_members(const MPI_Comm* newcomm, int rc, MPI_Comm errors_on, Make make) {
  if (rc != MPI_SUCCESS || newcomm == nullptr || *newcomm == MPI_COMM_NULL ||
      !making_duplicates() || is_inter(*newcomm))
    return;
  int size = 0;
  PMPI_Comm_size(*newcomm, &size);
  if (size >= 2)
    make_duplicate(*newcomm, errors_on, [&](bool, MPI_Comm* dup) { return make(dup); });
}

// The definition after liboverlap's (MPI's, or a tool's), else MPI's PMPI_ one.
template <class F>
F next(const char* name, F pmpi) {
  void* f = dlsym(RTLD_NEXT, name);
  return f != nullptr ? reinterpret_cast<F>(f) : pmpi;
}

}  // namespace
}  // namespace overlap::collectives

using overlap::collectives::made_by_members;
using overlap::collectives::made_from;
using overlap::collectives::making_duplicates;
using overlap::collectives::next;

// One definition per call that makes intracommunicators collectively over `parent`: the
// next definition, then the duplicate of what it made (`out`).
#define OVX_MAKES_COMM(name, params, args, parent, out) \
  extern "C" int name params {                          \
    static const auto f = next(#name, &P##name);        \
    const int rc = f args;                              \
    made_from(parent, out, rc);                         \
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
#undef OVX_MAKES_COMM

// Only the group's members call it: the duplicate is made the same way, with the
// program's tag (MPI requires concurrent calls on one communicator to use different tags).
extern "C" int MPI_Comm_create_group(MPI_Comm comm, MPI_Group group, int tag, MPI_Comm* newcomm) {
  static const auto f = next("MPI_Comm_create_group", &PMPI_Comm_create_group);
  const int rc = f(comm, group, tag, newcomm);
  made_by_members(newcomm, rc, comm,
                  [&](MPI_Comm* dup) { return PMPI_Comm_create_group(comm, group, tag, dup); });
  return rc;
}

extern "C" int MPI_Intercomm_merge(MPI_Comm intercomm, int high, MPI_Comm* newcomm) {
  static const auto f = next("MPI_Intercomm_merge", &PMPI_Intercomm_merge);
  const int rc = f(intercomm, high, newcomm);
  made_by_members(newcomm, rc, intercomm,
                  [&](MPI_Comm* dup) { return PMPI_Intercomm_merge(intercomm, high, dup); });
  return rc;
}

namespace {
// MPI_COMM_WORLD's duplicate, inside MPI_Init where every process is (a split of the
// lowest context id there is).
void world_made(int rc) {
  const MPI_Comm world = MPI_COMM_WORLD;
  made_by_members(&world, rc, world, [](MPI_Comm* dup) {
    int rank = 0;
    PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
    return PMPI_Comm_split(MPI_COMM_WORLD, 0, rank, dup);
  });
}
}  // namespace

extern "C" int MPI_Init(int* argc, char*** argv) {
  static const auto f = next("MPI_Init", &PMPI_Init);
  const int rc = f(argc, argv);
  world_made(rc);
  return rc;
}

extern "C" int MPI_Init_thread(int* argc, char*** argv, int required, int* provided) {
  static const auto f = next("MPI_Init_thread", &PMPI_Init_thread);
  const int rc = f(argc, argv, required, provided);
  world_made(rc);
  return rc;
}

extern "C" void ovx_private_duplicates_at_creation(int caller_makes_them) {
  if (caller_makes_them != 0) {
    overlap::collectives::shim_makes_them.store(true, std::memory_order_release);
    return;
  }
  world_made(MPI_SUCCESS);
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

#else

// MPICH: the first-use MPI_Comm_idup stays; nothing to make here.
extern "C" void ovx_private_duplicates_at_creation(int) {}

#endif  // OPEN_MPI
