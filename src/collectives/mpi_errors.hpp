// Errors reported the way MPI reports them: a new error code whose MPI_Error_string is
// our one-line message, passed to the communicator's error handler (by default
// MPI_ERRORS_ARE_FATAL aborts and prints it; with MPI_ERRORS_RETURN the caller gets the
// code back).
#pragma once

#include <mpi.h>

#include <string>

namespace overlap::collectives {

// Returns the error code after invoking `comm`'s error handler.
int report_error(MPI_Comm comm, const std::string& message);

}  // namespace overlap::collectives
