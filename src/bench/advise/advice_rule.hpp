// From the measured set-ups to the advice, and how a program gets each set-up. Pure: the
// MPI test recomputes the advice from the file with the same rule (docs/which-configuration.md).
//
// The rule: among the set-ups measured, the fastest time per iteration (t_iter median) is
// the reference; the advice is the simplest set-up (kAdviseSetupNames order: MPI's own
// first, a core left free last) whose time is within `margin` of it. So a set-up that
// needs a thread or a core is advised only where it pays by more than the margin.
// Today's time is MPI's own set-up as launched (mpi, or mpi-async when the run has MPI's
// asynchronous progress on). The advice's reason says when the fastest other set-up's
// p25-p75 range overlaps the advised one's (the measurement cannot tell them apart).
#pragma once

#include <string>
#include <vector>

#include "bench/advise/advise_record.hpp"

namespace overlap::bench {

// The advice point (setup advice) for `points` (the set-ups; any advice among them is
// ignored). Status invalid, with the reason, when no set-up was measured.
AdvisePoint advise(const std::vector<AdvisePoint>& points, double margin);

// What a program does to get `setup` on ranks running `threads` computation threads
// (mpich: the MPI library is MPICH, else Open MPI).
std::string how_to_get(AdviseSetup setup, bool mpich, int threads);

// The answer in a few lines for the console, from the advice point and the set-ups.
std::vector<std::string> advice_summary(const std::vector<AdvisePoint>& points);

}  // namespace overlap::bench
