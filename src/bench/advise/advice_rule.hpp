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

#include <optional>
#include <string>
#include <vector>

#include "bench/advise/advise_record.hpp"

namespace overlap::bench {

// A set-up's loop blocks are interleaved with the other set-ups' of its cell, so a change
// in the machine's speed (a virtual machine's host taking its cores) falls on all of them
// alike; its nbc point (the evidence: r_ovh, r_slow) is measured one set-up after another.
// A set-up's loop blocks whose p75 is more than kLoopSpreadTolerance above their p25 make
// its time per iteration uncertain, and the advice imprecise (seen once in 102 set-ups
// measured before the loops were interleaved: `caller` at 1 MiB with Open MPI,
// 13.0-16.1 ms, whose transfers sometimes moved during the computation).
inline constexpr double kLoopSpreadTolerance = 0.15;
// The computation alone (nbc's t_comp_ref) with its p75 more than kSpreadTolerance above
// its p25 makes a set-up's evidence uncertain; the medians of a cell's all-core set-ups more
// than kSpeedTolerance apart say the machine's speed changed during the cell. (Generous on
// purpose: on this project's virtual machines the computation alone varies by 10-30 % from
// set-up to set-up in ordinary runs, docs/results/advise-grid-2026-11-29.)
inline constexpr double kSpeedTolerance = 0.25;
inline constexpr double kSpreadTolerance = 0.5;

// "imprecise: ..." with the numbers for a set-up whose loop blocks varied beyond
// kLoopSpreadTolerance (empty: none).
std::string loop_note(const AdvisePoint& p);
// The note of a set-up whose computation alone varied beyond kSpreadTolerance during its
// nbc point (empty: none).
std::string evidence_note(const AdvisePoint& p);

// The advice point (setup advice) for `points` (the set-ups; any advice among them is
// ignored). Status invalid, with the reason, when no set-up was measured. Its reason
// starts with "imprecise: " when a set-up's loop varied (loop_note), and says when the
// machine's speed changed between the set-ups' nbc points: imprecise too when the set-ups'
// loops were not `interleaved` (a cell finished by --resume).
AdvisePoint advise(const std::vector<AdvisePoint>& points, double margin, bool interleaved = true);

// What a program does to get `setup` on ranks running `threads` computation threads
// (mpich: the MPI library is MPICH, else Open MPI; p2p: its communication is its own
// nonblocking point-to-point, --op ihalo, rather than a nonblocking collective).
std::string how_to_get(AdviseSetup setup, bool mpich, int threads, bool p2p = false);

// A grid of several cells (messages x computations): the one set-up for all of them.
// Per set-up measured in every cell that has a measurement, its worst loss: the largest
// t_iter / the cell's fastest - 1; the advice is the simplest set-up whose worst loss is
// within `margin` of the smallest. `within`: the cells where it is within `margin` of the
// fastest. No setup when no set-up was measured in every such cell.
struct OverallAdvice {
  std::optional<AdviseSetup> setup;
  double worst_loss = 0;
  int cells = 0;   // cells with a measurement
  int within = 0;  // of which the set-up is within the margin of the fastest
  std::string how;
};
OverallAdvice overall_advice(const std::vector<AdvisePoint>& points, double margin);
// The same as the point recorded after the cells (setup overall): invalid, with the
// reason, when no set-up qualifies.
AdvisePoint overall_point(const std::vector<AdvisePoint>& points, double margin);

// A cell as the console names it: "1 MiB, 4 ms" or "MPI's own 4 ms, 4 ms".
std::string cell_label(const AdvisePoint& cell);

// The answer in a few lines for the console, from the advice points and the set-ups: one
// cell's advice, or with several cells each one's and the one for all.
std::vector<std::string> advice_summary(const std::vector<AdvisePoint>& points, double margin);

}  // namespace overlap::bench
