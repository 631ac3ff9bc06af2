// Makes MPI's own progress loop drive the engine, so that a thread blocked in MPI_Wait
// (on our request or any other) progresses our collectives too. Open MPI offers no
// extended generalized requests, but its progress loop calls functions registered with
// opal_progress_register, an exported symbol of libopen-pal that Open MPI's own
// components use; we look it up at run time. MPICH needs no hook: the poll function of
// each generalized request does the same job.
#pragma once

#include "progress/progress_engine.hpp"

namespace overlap::progress {

class MpiProgressHook {
 public:
  explicit MpiProgressHook(ProgressEngine& engine);
  ~MpiProgressHook();
  MpiProgressHook(const MpiProgressHook&) = delete;
  MpiProgressHook& operator=(const MpiProgressHook&) = delete;

  // How MPI_Wait reaches the engine here: "opal_progress callback", "MPIX poll function"
  // or "none".
  const char* mechanism() const { return mechanism_; }

 private:
  const char* mechanism_ = "none";
  bool registered_ = false;
};

}  // namespace overlap::progress
