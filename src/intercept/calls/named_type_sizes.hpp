// The sizes of MPI's predefined datatypes, asked once after MPI_Init into the table the
// shim and the core look them up in (straight_path.h): a call that goes straight to MPI
// then never calls into MPI for its message's size.
#pragma once

#include "intercept/shim/straight_path.h"

namespace overlap::intercept {

// Asks MPI for each predefined C type's size (MPI initialised; before `on` is set).
void learn_named_type_sizes(ovx_straight& table);

}  // namespace overlap::intercept
