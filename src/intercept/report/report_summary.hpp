// The one-screen summary rank 0 prints at MPI_Finalize, from the whole report document:
// per call site over all ranks, calls, deferred, the mean overlap window, how often the
// buffer was touched before completion and the time the program stalled there, why the
// rest was not deferred, and where the program first touched buffers in flight.
#pragma once

#include <nlohmann/json.hpp>

#include <string>

namespace overlap::intercept {

std::string summary_text(const nlohmann::json& report, const std::string& path);

}  // namespace overlap::intercept
