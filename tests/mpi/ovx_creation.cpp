// ovx-creation: the program's own communicator creation and freeing around liboverlap's
// first collective on a communicator. Valid programs; each hung with Open MPI 4.1 while
// liboverlap made its hidden duplicate with MPI_Comm_idup at the first collective (Open
// MPI lets the pending context-id agreement with the lowest parent id go first, so this
// rank's own creation waited for ranks that waited for it).
//
//   mpiexec -n P ovx-creation SCENARIO [--timeout SEC]
//
// Scenarios:
//   behind       for each way of making a communicator (dup, split, cart_create, ...):
//                rank 0 starts the first collective on it, then makes communicators of
//                its own (MPI_Comm_split and MPI_Comm_dup of MPI_COMM_SELF and of
//                MPI_COMM_WORLD's split) and sends to the others, which receive before
//                their own first collective on it; results checked
//   free-behind  rank 0 starts the first collective on a communicator, frees it, then
//                sends to the others, which receive before their first collective on it
//   idup-made    a communicator the program made with MPI_Comm_idup (liboverlap then
//                duplicates it at the first collective), and MPI_COMM_SELF
//   idup-behind  rank 0 starts the first collective on a communicator made by
//                MPI_Comm_idup, then duplicates a one-process communicator made after it
//                (a higher context id) and sends to the others, which receive before
//                their own first collective. Open MPI: hangs, the documented limit of
//                communicators made by MPI_Comm_idup (their duplicate is made by an
//                MPI_Comm_idup at the first collective, which that MPI_Comm_dup waits
//                for; docs/liboverlap.md, docs/results/idup-twins-2026-11-30), so a
//                ctest entry with MPICH only
//   idup-pending rank 0's own MPI_Comm_idup of a communicator is pending (rank 1 joins it
//                only after a message) while every rank splits MPI_COMM_WORLD: Open MPI
//                lets that split (lower parent id) go first, and the duplicate liboverlap
//                makes inside it must not wait for the pending one either
//   idups-behind (3 ranks or more) rank 0 has two MPI_Comm_idup of its own pending (the
//                second waiting behind the first) while ranks 0 and 1 make a communicator
//                with MPI_Comm_create_group, then with MPI_Intercomm_merge; the others join
//                the idups only after rank 1's message: the duplicate made inside those
//                calls must wait for nothing the call itself did not (a split of the new
//                communicator, of a higher context id, waited for the idups: a hang)
//   churn        4000 communicators made and freed without a liboverlap call: memory
//                stays bounded (their duplicates go with them)
// Prints "PASS <scenario>" on rank 0 and exits 0; a hang is ended by a watchdog.
#include <overlap/overlap.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "verdict.hpp"
#include "watchdog.hpp"

namespace {

using ovx_test::expect;

int g_rank = 0;
int g_size = 1;

void check_rc(int rc, const char* what) {
  if (rc == MPI_SUCCESS) return;
  std::fprintf(stderr, "rank %d: %s failed (code %d)\n", g_rank, what, rc);
  MPI_Abort(MPI_COMM_WORLD, 2);
}

// The ways a program makes an intracommunicator of every rank, each named.
std::vector<std::pair<std::string, std::function<MPI_Comm()>>> makers() {
  auto world_group = [] {
    MPI_Group g;
    MPI_Comm_group(MPI_COMM_WORLD, &g);
    return g;
  };
  return {
      {"MPI_Comm_dup",
       [] {
         MPI_Comm c;
         check_rc(MPI_Comm_dup(MPI_COMM_WORLD, &c), "MPI_Comm_dup");
         return c;
       }},
      {"MPI_Comm_dup_with_info",
       [] {
         MPI_Comm c;
         check_rc(MPI_Comm_dup_with_info(MPI_COMM_WORLD, MPI_INFO_NULL, &c), "dup_with_info");
         return c;
       }},
      {"MPI_Comm_split",
       [] {
         MPI_Comm c;
         check_rc(MPI_Comm_split(MPI_COMM_WORLD, 0, g_size - g_rank, &c), "MPI_Comm_split");
         return c;
       }},
      {"MPI_Comm_split_type",
       [] {
         MPI_Comm c;
         // Every rank of these tests runs on one node.
         check_rc(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &c),
                  "MPI_Comm_split_type");
         return c;
       }},
      {"MPI_Comm_create",
       [world_group] {
         MPI_Group g = world_group();
         MPI_Comm c;
         check_rc(MPI_Comm_create(MPI_COMM_WORLD, g, &c), "MPI_Comm_create");
         MPI_Group_free(&g);
         return c;
       }},
      {"MPI_Comm_create_group",
       [world_group] {
         MPI_Group g = world_group();
         MPI_Comm c;
         check_rc(MPI_Comm_create_group(MPI_COMM_WORLD, g, 7, &c), "MPI_Comm_create_group");
         MPI_Group_free(&g);
         return c;
       }},
      {"MPI_Cart_create",
       [] {
         int dims[1] = {g_size}, periods[1] = {1};
         MPI_Comm c;
         check_rc(MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &c), "MPI_Cart_create");
         return c;
       }},
      {"MPI_Cart_sub",
       [] {
         int dims[2] = {g_size, 1}, periods[2] = {0, 0}, keep[2] = {1, 0};
         MPI_Comm cart, c;
         check_rc(MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &cart), "MPI_Cart_create");
         check_rc(MPI_Cart_sub(cart, keep, &c), "MPI_Cart_sub");
         MPI_Comm_free(&cart);
         return c;
       }},
      {"MPI_Graph_create",
       [] {
         // A ring.
         std::vector<int> index(static_cast<std::size_t>(g_size)), edges;
         for (int r = 0; r < g_size; ++r) {
           edges.push_back((r + 1) % g_size);
           index[static_cast<std::size_t>(r)] = r + 1;
         }
         MPI_Comm c;
         check_rc(MPI_Graph_create(MPI_COMM_WORLD, g_size, index.data(), edges.data(), 0, &c),
                  "MPI_Graph_create");
         return c;
       }},
      {"MPI_Dist_graph_create",
       [] {
         const int source = g_rank, degree = 1, target = (g_rank + 1) % g_size;
         MPI_Comm c;
         check_rc(MPI_Dist_graph_create(MPI_COMM_WORLD, 1, &source, &degree, &target,
                                        MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &c),
                  "MPI_Dist_graph_create");
         return c;
       }},
      {"MPI_Dist_graph_create_adjacent",
       [] {
         const int from = (g_rank + g_size - 1) % g_size, to = (g_rank + 1) % g_size;
         MPI_Comm c;
         check_rc(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, &from, MPI_UNWEIGHTED, 1, &to,
                                                 MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &c),
                  "MPI_Dist_graph_create_adjacent");
         return c;
       }},
      {"MPI_Intercomm_merge",
       [] {
         // Even and odd ranks, joined by an intercommunicator, merged again.
         MPI_Comm half, inter, c;
         check_rc(MPI_Comm_split(MPI_COMM_WORLD, g_rank % 2, g_rank, &half), "MPI_Comm_split");
         check_rc(MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, 1 - g_rank % 2, 9, &inter),
                  "MPI_Intercomm_create");
         check_rc(MPI_Intercomm_merge(inter, g_rank % 2, &c), "MPI_Intercomm_merge");
         MPI_Comm_free(&inter);
         MPI_Comm_free(&half);
         return c;
       }},
      {"MPI_Comm_idup",
       [] {
         MPI_Comm c;
         MPI_Request r;
         check_rc(MPI_Comm_idup(MPI_COMM_WORLD, &c, &r), "MPI_Comm_idup");
         check_rc(MPI_Wait(&r, MPI_STATUS_IGNORE), "MPI_Wait");
         return c;
       }},
      {"MPI_Comm_idup of a parent freed at once",
       [] {
         // The parent goes as soon as the program's idup is complete.
         MPI_Comm parent, c;
         MPI_Request r;
         check_rc(MPI_Comm_split(MPI_COMM_WORLD, 0, g_rank, &parent), "MPI_Comm_split");
         check_rc(MPI_Comm_idup(parent, &c, &r), "MPI_Comm_idup");
         check_rc(MPI_Wait(&r, MPI_STATUS_IGNORE), "MPI_Wait");
         check_rc(MPI_Comm_free(&parent), "MPI_Comm_free");
         return c;
       }},
      {"MPI_COMM_WORLD", [] { return MPI_COMM_WORLD; }},
  };
}

void send_token_from_zero() {
  int token = 0;
  if (g_rank == 0) {
    for (int p = 1; p < g_size; ++p)
      check_rc(MPI_Send(&token, 1, MPI_INT, p, 3, MPI_COMM_WORLD), "MPI_Send");
  } else {
    check_rc(MPI_Recv(&token, 1, MPI_INT, 0, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE), "MPI_Recv");
  }
}

// Rank 0's own communicator creation right after its first collective on `comm`.
void make_some_on_zero() {
  if (g_rank != 0) return;
  MPI_Comm a, b, c;
  check_rc(MPI_Comm_split(MPI_COMM_SELF, 0, 0, &a), "MPI_Comm_split of MPI_COMM_SELF");
  check_rc(MPI_Comm_dup(MPI_COMM_SELF, &b), "MPI_Comm_dup of MPI_COMM_SELF");
  check_rc(MPI_Comm_dup(a, &c), "MPI_Comm_dup");
  for (MPI_Comm* x : {&a, &b, &c}) MPI_Comm_free(x);
}

// The first collective on `comm` (rank 0 first, the others after its message), with
// `between` run on rank 0 in between.
void first_behind(MPI_Comm comm, const std::string& name, const std::function<void()>& between) {
  int in = g_rank + 1, out = 0, size = 0;
  MPI_Comm_size(comm, &size);
  int expected = 0;
  {
    int mine = in;
    MPI_Allreduce(&mine, &expected, 1, MPI_INT, MPI_SUM, comm);
  }
  MPI_Request r = MPI_REQUEST_NULL;
  if (g_rank == 0) {
    check_rc(OVX_Iallreduce(&in, &out, 1, MPI_INT, MPI_SUM, comm, &r), "OVX_Iallreduce");
    between();
  }
  send_token_from_zero();
  if (g_rank != 0)
    check_rc(OVX_Iallreduce(&in, &out, 1, MPI_INT, MPI_SUM, comm, &r), "OVX_Iallreduce");
  check_rc(MPI_Wait(&r, MPI_STATUS_IGNORE), "MPI_Wait");
  expect(out == expected,
         name + ": wrong sum " + std::to_string(out) + ", expected " + std::to_string(expected));
}

void behind() {
  check_rc(OVX_Init(OVX_PROGRESS_CALLER), "OVX_Init");
  for (auto& [name, make] : makers()) {
    MPI_Comm comm = make();
    first_behind(comm, name, make_some_on_zero);
    // A second collective on it, every rank at once.
    int in = 1, out = 0, size = 0;
    MPI_Comm_size(comm, &size);
    MPI_Request r;
    check_rc(OVX_Iallreduce(&in, &out, 1, MPI_INT, MPI_SUM, comm, &r), "OVX_Iallreduce");
    check_rc(MPI_Wait(&r, MPI_STATUS_IGNORE), "MPI_Wait");
    expect(out == size, name + ": second allreduce gave " + std::to_string(out));
    if (comm != MPI_COMM_WORLD) MPI_Comm_free(&comm);
  }
  check_rc(OVX_Finalize(), "OVX_Finalize");
}

void free_behind() {
  check_rc(OVX_Init(OVX_PROGRESS_CALLER), "OVX_Init");
  MPI_Comm comm;
  check_rc(MPI_Comm_split(MPI_COMM_WORLD, 0, g_rank, &comm), "MPI_Comm_split");
  int in = g_rank + 1, out = 0;
  MPI_Request r = MPI_REQUEST_NULL;
  if (g_rank == 0) {
    check_rc(OVX_Iallreduce(&in, &out, 1, MPI_INT, MPI_SUM, comm, &r), "OVX_Iallreduce");
    check_rc(MPI_Comm_free(&comm), "MPI_Comm_free");  // pending collectives complete normally
  }
  send_token_from_zero();
  if (g_rank != 0) {
    check_rc(OVX_Iallreduce(&in, &out, 1, MPI_INT, MPI_SUM, comm, &r), "OVX_Iallreduce");
    check_rc(MPI_Comm_free(&comm), "MPI_Comm_free");
  }
  check_rc(MPI_Wait(&r, MPI_STATUS_IGNORE), "MPI_Wait");
  expect(out == g_size * (g_size + 1) / 2, "allreduce on a freed communicator: wrong sum");
  check_rc(OVX_Finalize(), "OVX_Finalize");
}

void idup_made() {
  check_rc(OVX_Init(OVX_PROGRESS_CALLER), "OVX_Init");
  MPI_Comm comm;
  MPI_Request made;
  check_rc(MPI_Comm_idup(MPI_COMM_WORLD, &comm, &made), "MPI_Comm_idup");
  check_rc(MPI_Wait(&made, MPI_STATUS_IGNORE), "MPI_Wait");
  for (MPI_Comm c : {comm, MPI_COMM_SELF}) {
    int in = g_rank + 1, out = 0, size = 0, expected = 0;
    MPI_Comm_size(c, &size);
    MPI_Allreduce(&in, &expected, 1, MPI_INT, MPI_SUM, c);
    MPI_Request r;
    check_rc(OVX_Iallreduce(&in, &out, 1, MPI_INT, MPI_SUM, c, &r), "OVX_Iallreduce");
    check_rc(MPI_Wait(&r, MPI_STATUS_IGNORE), "MPI_Wait");
    expect(out == expected, "allreduce on a communicator made by MPI_Comm_idup: wrong sum");
  }
  MPI_Comm_free(&comm);
  check_rc(OVX_Finalize(), "OVX_Finalize");
}

void idup_pending() {
  MPI_Comm late, copy, split;
  check_rc(MPI_Comm_dup(MPI_COMM_WORLD, &late), "MPI_Comm_dup");
  MPI_Request r = MPI_REQUEST_NULL;
  if (g_rank == 0) check_rc(MPI_Comm_idup(late, &copy, &r), "MPI_Comm_idup");
  check_rc(MPI_Comm_split(MPI_COMM_WORLD, g_rank % 2, g_rank, &split), "MPI_Comm_split");
  send_token_from_zero();
  if (g_rank != 0) check_rc(MPI_Comm_idup(late, &copy, &r), "MPI_Comm_idup");
  check_rc(MPI_Wait(&r, MPI_STATUS_IGNORE), "MPI_Wait");
  check_rc(OVX_Init(OVX_PROGRESS_CALLER), "OVX_Init");
  for (MPI_Comm c : {split, copy}) {
    int in = 1, out = 0, size = 0;
    MPI_Comm_size(c, &size);
    MPI_Request q;
    check_rc(OVX_Iallreduce(&in, &out, 1, MPI_INT, MPI_SUM, c, &q), "OVX_Iallreduce");
    check_rc(MPI_Wait(&q, MPI_STATUS_IGNORE), "MPI_Wait");
    expect(out == size, "allreduce after the pending MPI_Comm_idup: wrong sum");
  }
  for (MPI_Comm* c : {&late, &copy, &split}) MPI_Comm_free(c);
  check_rc(OVX_Finalize(), "OVX_Finalize");
}

void idup_behind() {
  check_rc(OVX_Init(OVX_PROGRESS_CALLER), "OVX_Init");
  MPI_Comm comm, mine;
  MPI_Request r;
  check_rc(MPI_Comm_idup(MPI_COMM_WORLD, &comm, &r), "MPI_Comm_idup");
  check_rc(MPI_Wait(&r, MPI_STATUS_IGNORE), "MPI_Wait");
  // Made after `comm`: a higher context id.
  check_rc(MPI_Comm_split(MPI_COMM_SELF, 0, 0, &mine), "MPI_Comm_split of MPI_COMM_SELF");
  first_behind(comm, "MPI_Comm_idup", [&] {
    MPI_Comm copy;
    check_rc(MPI_Comm_dup(mine, &copy), "MPI_Comm_dup");
    MPI_Comm_free(&copy);
  });
  MPI_Comm_free(&mine);
  MPI_Comm_free(&comm);
  check_rc(OVX_Finalize(), "OVX_Finalize");
}

// One round of idups-behind: `make` runs on ranks 0 and 1 and returns what they made.
void idups_behind(const std::string& name, const std::function<MPI_Comm()>& make) {
  MPI_Comm d, e, d2 = MPI_COMM_NULL, e2 = MPI_COMM_NULL;
  check_rc(MPI_Comm_dup(MPI_COMM_WORLD, &d), "MPI_Comm_dup");
  check_rc(MPI_Comm_dup(MPI_COMM_WORLD, &e), "MPI_Comm_dup");
  MPI_Request r[2] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL};
  if (g_rank == 0) {
    check_rc(MPI_Comm_idup(d, &d2, &r[0]), "MPI_Comm_idup");
    check_rc(MPI_Comm_idup(e, &e2, &r[1]), "MPI_Comm_idup");
  }
  MPI_Comm made = g_rank < 2 ? make() : MPI_COMM_NULL;
  int token = 0;
  if (g_rank == 1)
    for (int p = 2; p < g_size; ++p)
      check_rc(MPI_Send(&token, 1, MPI_INT, p, 4, MPI_COMM_WORLD), "MPI_Send");
  if (g_rank >= 2)
    check_rc(MPI_Recv(&token, 1, MPI_INT, 1, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE), "MPI_Recv");
  if (g_rank != 0) {
    check_rc(MPI_Comm_idup(d, &d2, &r[0]), "MPI_Comm_idup");
    check_rc(MPI_Comm_idup(e, &e2, &r[1]), "MPI_Comm_idup");
  }
  check_rc(MPI_Waitall(2, r, MPI_STATUSES_IGNORE), "MPI_Waitall");
  if (made != MPI_COMM_NULL) {
    int in = 1, out = 0;
    MPI_Request q;
    check_rc(OVX_Iallreduce(&in, &out, 1, MPI_INT, MPI_SUM, made, &q), "OVX_Iallreduce");
    check_rc(MPI_Wait(&q, MPI_STATUS_IGNORE), "MPI_Wait");
    expect(out == 2, name + " behind pending idups: wrong sum " + std::to_string(out));
    MPI_Comm_free(&made);
  }
  for (MPI_Comm* c : {&d2, &e2, &d, &e}) MPI_Comm_free(c);
}

void idups_behind_all() {
  check_rc(OVX_Init(OVX_PROGRESS_CALLER), "OVX_Init");
  MPI_Group world, pair;
  MPI_Comm_group(MPI_COMM_WORLD, &world);
  const int two[2] = {0, 1};
  MPI_Group_incl(world, 2, two, &pair);
  idups_behind("MPI_Comm_create_group", [&] {
    MPI_Comm c;
    check_rc(MPI_Comm_create_group(MPI_COMM_WORLD, pair, 5, &c), "MPI_Comm_create_group");
    return c;
  });
  // Ranks 0 and 1, each a group of its own, joined by an intercommunicator.
  MPI_Comm half = MPI_COMM_NULL, inter = MPI_COMM_NULL;
  check_rc(MPI_Comm_split(MPI_COMM_WORLD, g_rank < 2 ? g_rank : MPI_UNDEFINED, 0, &half),
           "MPI_Comm_split");
  if (g_rank < 2)
    check_rc(MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, 1 - g_rank, 9, &inter),
             "MPI_Intercomm_create");
  idups_behind("MPI_Intercomm_merge", [&] {
    MPI_Comm c;
    check_rc(MPI_Intercomm_merge(inter, g_rank, &c), "MPI_Intercomm_merge");
    return c;
  });
  for (MPI_Comm* c : {&inter, &half})
    if (*c != MPI_COMM_NULL) MPI_Comm_free(c);
  MPI_Group_free(&pair);
  MPI_Group_free(&world);
  check_rc(OVX_Finalize(), "OVX_Finalize");
}

long resident_kib() {
  std::ifstream status("/proc/self/status");
  std::string key;
  long value = 0;
  while (status >> key) {
    if (key == "VmRSS:") {
      status >> value;
      return value;
    }
    status.ignore(4096, '\n');
  }
  return 0;
}

// Without their duplicates going with them (liboverlap's MPI_Comm_free), a program that
// never calls liboverlap would keep one per communicator it ever made.
void churn() {
  constexpr int kRounds = 4000;
  long before = 0;
  for (int i = 0; i < kRounds; ++i) {
    if (i == 200) before = resident_kib();
    MPI_Comm c;
    check_rc(MPI_Comm_split(MPI_COMM_WORLD, 0, g_rank, &c), "MPI_Comm_split");
    check_rc(MPI_Comm_free(&c), "MPI_Comm_free");
  }
  const long grown = resident_kib() - before;
  if (g_rank == 0) std::printf("%d communicators made and freed: grew %ld KiB\n", kRounds, grown);
#if defined(__SANITIZE_ADDRESS__)
  // AddressSanitizer keeps freed memory in quarantine (145 MiB here): the plain builds
  // check the growth; this one checks the memory accesses of the same rounds.
  if (g_rank == 0) std::printf("memory growth not checked under AddressSanitizer\n");
#else
  // Kept duplicates grew it by 6.4 MiB (checked with the freeing switched off); 12 KiB
  // with it.
  expect(grown < 2 * 1024, "memory grew by " + std::to_string(grown) +
                               " KiB over 3800 communicators made and freed (limit 2 MiB)");
#endif
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: ovx-creation SCENARIO [--timeout SEC]\n");
    return 2;
  }
  const std::string scenario = argv[1];
  const int timeout = argc >= 4 && std::string(argv[2]) == "--timeout" ? std::atoi(argv[3]) : 60;
  ovx_test::Watchdog watchdog(
      timeout, [scenario] { return "rank " + std::to_string(g_rank) + ": " + scenario; });
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &g_size);
  const std::map<std::string, std::function<void()>> scenarios = {
      {"behind", behind},
      {"free-behind", free_behind},
      {"idup-made", idup_made},
      {"idup-behind", idup_behind},
      {"idup-pending", idup_pending},
      {"idups-behind", idups_behind_all},
      {"churn", churn}};
  return ovx_test::run_scenario("ovx-creation", scenario, scenarios);
}
