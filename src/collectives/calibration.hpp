// The calibration of the cost model (cost_params.hpp), collective over MPI_COMM_WORLD:
// OVX_Calibrate, and overlap-run inside MPI_Init. Each rank reads OVERLAP_COST_MODEL; where
// any rank measures, ranks r and r + P/2 ping-pong on a private duplicate of
// MPI_COMM_WORLD (with one rank per node and ranks placed in blocks, across nodes): 30
// round trips of 8 bytes give the latency (half the fastest), 3 of 512 KiB the bandwidth.
// Then every rank gathers every rank's parameters and combines them (the slowest link), so
// each gets the same ones whatever it measured or was told. A process that already called a
// liboverlap collective makes the calibration fail everywhere, changing nothing (the
// collectives in flight chose with the old parameters); so does a malformed setting.
// Takes about 30 ms on a 1 Gbit/s link, well under 1 ms on shared memory.
#pragma once

#include <string>

#include "collectives/cost_params.hpp"

namespace overlap::collectives {

// MPI_SUCCESS, or an MPI error class with `error` saying why (the same on every rank but
// for a malformed setting, which its rank names). Every rank of MPI_COMM_WORLD must call.
int calibrate_world(std::string& error);
// Hands the process's parameters to the progress engine, whose `shared` thread paces its
// pauses by the steps' expected times (progress/step_pacing.hpp). calibrate_world does it
// once the ranks agree; the engine's start does it with what the process has then.
void push_link_model();

}  // namespace overlap::collectives
