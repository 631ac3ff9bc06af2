// A program's own MPI-4 partitioned communication routed to liboverlap's partitioned layer
// (the OVX_P* calls), so that an unchanged partitioned code gets early-bird transfer under
// overlap-run (docs/overlap-run.md, "Partitioned communication"). Compiled in where MPI's
// header has the partitioned API (MPI_VERSION >= 4: MPICH 4); elsewhere nothing is routed.
#pragma once

#include <cstdint>

#include "intercept/shim/shim_api.h"

namespace overlap::intercept {

// Fills the table entries of the routed calls: MPI_Psend_init, MPI_Precv_init,
// MPI_Pready(_range, _list), MPI_Parrived, MPI_Start(all), the Wait/Test families,
// MPI_Request_get_status, MPI_Request_free and MPI_Cancel. Call once the rest of `table`
// is filled: a call on a request that is not routed does what the shim would have done
// without the entry (the table's fence or poll, then MPI's own function). No entry is
// set where MPI has no partitioned API.
void add_partitioned_routes(ovx_core& table);

// At MPI_Init, once interception is active: the duplicate of MPI_COMM_WORLD the layer's
// messages go on (collective over MPI_COMM_WORLD). At MPI_Finalize: freed.
void start_partitioned_routes();
void stop_partitioned_routes();

// Whether this build routes at all (MPI's header has the partitioned API).
bool partitioned_routing_compiled();
// Partitioned requests routed in this process so far (for the report).
std::uint64_t partitioned_routed();

}  // namespace overlap::intercept
