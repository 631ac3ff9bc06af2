// Makes MPI's own progress loop drive the engine, so that a thread blocked in any MPI call
// (MPI_Wait on our request or any other, MPI_Recv, ...) progresses our collectives too.
//  - Open MPI offers no extended generalized requests, but its progress loop, run by every
//    blocking or testing MPI call, calls functions registered with opal_progress_register,
//    an exported symbol of libopen-pal that Open MPI's own components use; we look it up
//    at run time.
//  - MPICH 4.0 has no such hook (nothing of the kind is exported by libmpich.so.12): it
//    calls the poll function of a generalized request only from MPI_Test/MPI_Wait (and
//    their -all/-any/-some forms) on that very request. What that leaves uncovered is
//    described in docs/liboverlap.md (the `caller` policy's rescue thread).
#pragma once

#include "progress/progress_engine.hpp"

namespace overlap::progress {

class MpiProgressHook {
 public:
  explicit MpiProgressHook(ProgressEngine& engine);
  ~MpiProgressHook();
  MpiProgressHook(const MpiProgressHook&) = delete;
  MpiProgressHook& operator=(const MpiProgressHook&) = delete;

  // True when every MPI call that progresses MPI also progresses the engine.
  bool covers_all_mpi_calls() const { return registered_; }
  // How MPI calls reach the engine here: "opal_progress callback", "MPIX poll function
  // (MPI_Test/MPI_Wait on liboverlap's requests only)" or "none".
  const char* mechanism() const { return mechanism_; }

 private:
  const char* mechanism_ = "none";
  bool registered_ = false;
};

}  // namespace overlap::progress
