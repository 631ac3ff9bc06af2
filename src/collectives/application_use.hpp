// The application's own use of the process's progress engine (engine_runtime): OVX_Init
// starts it (or joins it when another layer started it), the first collective does so
// implicitly with OVX_PROGRESS_DEFAULT if the application never called OVX_Init, and
// OVX_Finalize ends it. After OVX_Finalize, collectives are refused until OVX_Init is
// called again; requests already handed out stay valid and complete (the engine drains
// them before it stops).
#pragma once

#include <optional>
#include <string>

#include "progress/progress_engine.hpp"

namespace overlap::collectives {

// OVX_Init. Returns the engine, or nullptr with `error` set.
progress::ProgressEngine* application_start(std::optional<progress::ProgressPolicy> requested,
                                            std::string& error);
// For a collective: the engine, starting it with the default policy on first use.
progress::ProgressEngine* application_engine(std::string& error);
// OVX_Finalize: ends the application's use (no-op when it has none).
void application_finalize();
// True between OVX_Init (or the implicit start) and OVX_Finalize.
bool application_active();

}  // namespace overlap::collectives
