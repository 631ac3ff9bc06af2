// Errors reported the way MPI reports them: an error code whose MPI_Error_string is our
// one-line message, passed to the communicator's error handler (by default
// MPI_ERRORS_ARE_FATAL aborts and prints it; with MPI_ERRORS_RETURN the caller gets the
// code back).
//
// MPI libraries cap how many error codes a program may add, so liboverlap adds a fixed
// set: per kind of error a small ring of codes under the predefined class MPI itself
// would use for that error (MPI_Add_error_code on MPI_ERR_ROOT, MPI_ERR_OP...; a program
// that handles errors by class sees the classes it knows), whose strings are rewritten
// with each new message (MPI_Add_error_string replaces a string). A returned code keeps
// its message until kCodesPerClass more errors of its kind happened. (MPICH 4.0.2 loses
// the strings of such codes: there each kind has a class of its own; see mpi_errors.cpp.)
#pragma once

#include <mpi.h>

#include <string>

namespace overlap::progress {

enum class ErrorKind {
  argument,      // MPI_ERR_ARG: an argument the call does not accept (NULL pointers...)
  root,          // MPI_ERR_ROOT: root not a rank of the communicator
  count,         // MPI_ERR_COUNT: a negative count, or a buffer too large
  type,          // MPI_ERR_TYPE: a datatype liboverlap cannot use
  operation,     // MPI_ERR_OP: an operation not defined (or not supported) for the datatype
  communicator,  // MPI_ERR_COMM: a communicator liboverlap cannot use
  request,       // MPI_ERR_REQUEST: misuse of a liboverlap request, or one abandoned
  state,         // MPI_ERR_OTHER: liboverlap or MPI not in a state that allows the call
  other,         // MPI_ERR_OTHER: MPI failed underneath (e.g. the hidden duplication)
};
inline constexpr int kErrorKinds = 9;
inline constexpr int kCodesPerClass = 8;

// Creates the classes and codes (once). Call from an entry point of liboverlap with MPI
// initialised, never from an MPI callback. False when MPI could not provide them.
bool prepare_error_codes();
// A code of `kind` whose string now is "liboverlap: " + message. Without MPI (before
// MPI_Init, after MPI_Finalize) it prints the message to stderr and returns MPI_ERR_OTHER.
int make_error_code(ErrorKind kind, const std::string& message);
// make_error_code, then the error handler of `comm` (MPI_COMM_WORLD for MPI_COMM_NULL and
// for calls without a communicator, as MPI 3.1 does). Returns the code.
int report_error(MPI_Comm comm, ErrorKind kind, const std::string& message);
// report_error with the calling function's name first ("OVX_Pready: ...").
int report_call_error(const char* fn, MPI_Comm comm, ErrorKind kind, const std::string& why);
// In a child created by fork() neither MPI nor the engine can be used: one line on stderr
// naming `fn`, MPI_ERR_OTHER, nothing touched.
int refuse_in_forked_child(const char* fn);

// The class of `kind`'s codes: the predefined one (Open MPI), else ours, or MPI_ERR_OTHER
// before prepare_error_codes succeeded.
int error_class(ErrorKind kind);

// Fixed codes for the callbacks of our generalized requests, which must not call MPI
// (MPICH holds its lock there); MPI_ERR_OTHER before prepare_error_codes succeeded.
int cancel_refused_code();
int abandoned_code();

}  // namespace overlap::progress
