// A deferred receive returns before its message has arrived, but the program may have
// asked for a status. What is known then (MPI_SOURCE, MPI_TAG, MPI_ERROR) is filled in;
// what is not (the count) is replaced by a mark in the status's hidden fields naming the
// transfer: MPI_Get_count, MPI_Get_elements(_x) and MPI_Test_cancelled recognise the mark,
// complete that transfer and answer from its real status. The mark survives copies of
// the status (it is in the value), and no status MPI produces carries it: it would mean
// a message of more than 2^61 bytes (MPICH) or a cancelled flag that is neither 0 nor 1
// (Open MPI).
#pragma once

#include <mpi.h>

#include <cstdint>
#include <optional>

namespace overlap::intercept {

void encode_pending(MPI_Status& status, std::uint32_t token);
std::optional<std::uint32_t> pending_token(const MPI_Status& status);

}  // namespace overlap::intercept
