// Errors reported the way MPI reports them: an error code whose MPI_Error_string is our
// one-line message, passed to the communicator's error handler (by default
// MPI_ERRORS_ARE_FATAL aborts and prints it; with MPI_ERRORS_RETURN the caller gets the
// code back).
//
// MPI libraries cap how many error classes and codes a program may add, so liboverlap
// adds a fixed set: one class per kind of error, each with a small ring of codes whose
// strings are rewritten with each new message (MPI_Add_error_string replaces a string).
// A returned code keeps its message until kCodesPerClass more errors of its kind happened.
#pragma once

#include <mpi.h>

#include <string>

namespace overlap::progress {

enum class ErrorKind {
  argument,      // a count, buffer, root, datatype or size the call does not accept
  operation,     // a reduction operation not defined (or not supported) for the datatype
  communicator,  // a communicator liboverlap cannot use
  state,         // liboverlap or MPI not in a state that allows the call
  request,       // misuse of a liboverlap request (MPI_Cancel) or a collective abandoned
};
inline constexpr int kErrorKinds = 5;
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

// The class of `kind`, or MPI_ERR_OTHER before prepare_error_codes succeeded.
int error_class(ErrorKind kind);

// Fixed codes for the callbacks of our generalized requests, which must not call MPI
// (MPICH holds its lock there); MPI_ERR_OTHER before prepare_error_codes succeeded.
int cancel_refused_code();
int abandoned_code();

}  // namespace overlap::progress
