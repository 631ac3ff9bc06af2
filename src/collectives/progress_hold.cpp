// OVX_Progress_begin/_end (include/overlap/overlap.h): the engine drives MPI's own progress
// for point-to-point operations the application posted and completes itself. The engine
// never sees those requests (a handle the program may complete and free at any moment
// cannot be observed safely from another thread); it only calls into MPI in each pass
// while a hold is open (progress::Scheduler::hold). docs/liboverlap.md, "Point-to-point
// progress".
#include <string>

#include "collectives/application_use.hpp"
#include "overlap/overlap.h"
#include "progress/engine_runtime.hpp"
#include "progress/mpi_errors.hpp"
#include "progress/mpi_transport.hpp"

extern "C" {

int OVX_Progress_begin(void) {
  using namespace overlap;
  if (progress::in_forked_child()) return progress::refuse_in_forked_child("OVX_Progress_begin");
  progress::safe_point();
  std::string error;
  progress::ProgressEngine* engine = collectives::application_engine(error);
  if (engine == nullptr)
    return progress::report_call_error("OVX_Progress_begin", MPI_COMM_WORLD,
                                       progress::ErrorKind::state, error);
  engine->scheduler().hold(progress::mpi_request_tester());
  return MPI_SUCCESS;
}

int OVX_Progress_end(void) {
  using namespace overlap;
  if (progress::in_forked_child()) return progress::refuse_in_forked_child("OVX_Progress_end");
  // After MPI_Finalize (which dropped every hold) no error handler may run.
  int finalized = 0;
  PMPI_Finalized(&finalized);
  if (finalized) return MPI_ERR_OTHER;
  progress::ProgressEngine* engine = progress::running_engine();
  const bool released = engine != nullptr && engine->scheduler().release_hold();
  progress::safe_point();  // the engine stops here if this was the last thing it drained
  if (released) return MPI_SUCCESS;
  return progress::report_call_error(
      "OVX_Progress_end", MPI_COMM_WORLD, progress::ErrorKind::state,
      "no OVX_Progress_begin is open (each OVX_Progress_begin takes one OVX_Progress_end)");
}

}  // extern "C"
