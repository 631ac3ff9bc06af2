// The process-wide liboverlap state behind the C API: one progress engine and its MPI
// hook, started by OVX_Init (or the first collective) and stopped by OVX_Finalize or by
// MPI_Finalize itself (through an attribute on MPI_COMM_SELF, which MPI deletes first
// thing in MPI_Finalize).
#pragma once

#include <optional>
#include <string>

#include "progress/progress_engine.hpp"

namespace overlap::collectives {

// Starts the engine if it is not running. `requested` empty: from the environment.
// Returns the engine, or nullptr with `error` set (one line: what and what to do).
progress::ProgressEngine* runtime_start(std::optional<progress::ProgressPolicy> requested,
                                        std::string& error);
// The running engine or nullptr.
progress::ProgressEngine* runtime_engine();
// Stops the engine (joins its thread) and frees liboverlap's communicators.
void runtime_stop();

}  // namespace overlap::collectives
