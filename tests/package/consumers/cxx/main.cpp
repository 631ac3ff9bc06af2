// A C++ application that includes <mpi.h> itself, first (with Open MPI that pulls MPI's
// C++ bindings into this translation unit, which then need libmpi_cxx at link time), and
// uses both installed headers. It checks liboverlap's results against MPI's own and that
// the program's MPI_Finalize is liboverlap's, and prints "consumer ok P" on rank 0.
#include <dlfcn.h>
#include <mpi.h>

#include <overlap/overlap.hpp>

#include <cstdio>
#include <cstring>
#include <vector>

namespace {

// liboverlap's MPI_Finalize stops its progress thread before MPI tears down; it is only
// the one called when liboverlap comes before the MPI library in the link order.
bool finalize_is_liboverlaps() {
  Dl_info info{};
  void* f = dlsym(RTLD_DEFAULT, "MPI_Finalize");
  const bool found = f != nullptr && dladdr(f, &info) != 0 && info.dli_fname != nullptr;
  if (found && std::strstr(info.dli_fname, "liboverlap") != nullptr) return true;
  std::fprintf(stderr, "MPI_Finalize resolves to %s, not liboverlap\n",
               found ? info.dli_fname : "nothing");
  return false;
}

}  // namespace

int main(int argc, char** argv) {
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  bool ok = true;
  {
    overlap::Session session(overlap::Progress::shared);
    std::vector<long> mine(1000), ours(1000), theirs(1000);
    for (std::size_t i = 0; i < mine.size(); ++i) mine[i] = (rank + 1) * static_cast<long>(i);
    auto r = overlap::iallreduce<long>(mine, ours, MPI_SUM, MPI_COMM_WORLD);
    MPI_Allreduce(mine.data(), theirs.data(), 1000, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    std::vector<int> data(5000, rank == 0 ? 7 : rank);
    MPI_Request plain;
    OVX_Ibcast(data.data(), 5000, MPI_INT, 0, MPI_COMM_WORLD, &plain);
    MPI_Wait(&plain, MPI_STATUS_IGNORE);
    r.wait();
    ok = ours == theirs;
    for (int v : data) ok = ok && v == 7;
    ok = ok && session.policy() == overlap::Progress::shared;
  }
  ok = ok && finalize_is_liboverlaps();
  int all = ok ? 1 : 0;
  MPI_Allreduce(MPI_IN_PLACE, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (rank == 0) std::printf(all ? "consumer ok %d\n" : "consumer WRONG %d\n", size);
  MPI_Finalize();
  return all ? 0 : 1;
}
