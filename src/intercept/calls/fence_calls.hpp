// The core's fences limited to what a call can observe (shim_api.h's fence_* entries,
// used by mpi_footprints.h): one per signature shape.
#pragma once

#include "intercept/shim/shim_api.h"

namespace overlap::intercept {

// Fills the fence_* entries of the core's table.
void add_fences(ovx_core& table);

}  // namespace overlap::intercept
