// The core's entries for the program's own requests (request_calls.cpp): nonblocking
// point-to-point, the Wait/Test families and MPI_Request_free, and the record kept around
// the shim's FENCE_REQ/EXPOSE_REQ entries (program_requests.hpp).
#pragma once

#include "intercept/shim/shim_api.h"

namespace overlap::intercept {

// Fills those entries; call last: the Wait/Test families and MPI_Request_free wrap what
// the table holds for them (partitioned routes, where MPI has the partitioned API).
void add_request_calls(ovx_core& table);

}  // namespace overlap::intercept
