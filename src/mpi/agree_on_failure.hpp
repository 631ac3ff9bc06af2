// Collective agreement on a local failure: every rank learns the reason of the lowest
// rank that failed ("" when none did), so all ranks skip or stop together and one line
// can say why.
#pragma once

#include <mpi.h>

#include <string>

namespace overlap::mpi {

std::string agree_on_failure(MPI_Comm comm, const std::string& local_reason);

}  // namespace overlap::mpi
