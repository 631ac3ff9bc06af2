#include "mpi/agree_on_failure.hpp"

#include <climits>
#include <cstddef>

namespace overlap::mpi {

std::string agree_on_failure(MPI_Comm comm, const std::string& local) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  int mine = local.empty() ? INT_MAX : rank, lowest = INT_MAX;
  MPI_Allreduce(&mine, &lowest, 1, MPI_INT, MPI_MIN, comm);
  if (lowest == INT_MAX) return "";
  int len = rank == lowest ? static_cast<int>(local.size()) : 0;
  MPI_Bcast(&len, 1, MPI_INT, lowest, comm);
  std::string reason = rank == lowest ? local : std::string(static_cast<std::size_t>(len), ' ');
  MPI_Bcast(reason.data(), len, MPI_CHAR, lowest, comm);
  return reason;
}

}  // namespace overlap::mpi
