#include "bench/advise/advise_record.hpp"

#include <algorithm>
#include <cmath>

namespace overlap::bench {

const Schema<AdviseConfig>& advise_config_schema() {
  using C = AdviseConfig;
  static const Schema<C> s =
      Schema<C>()
          .add("op", &C::op, kNonblockingNames,
               "the program's nonblocking collective, or ihalo (its point-to-point exchange)")
          .add("sizes_bytes", &C::sizes_bytes, Unit::bytes,
               "the program's message sizes (the collective's buffer per rank, nbc's meaning); "
               "empty: the sizes at which MPI's own collective takes target_comms_s")
          .add("target_comms_s", &C::target_comms_s, Unit::seconds,
               "MPI's own collective's times when sizes_bytes is empty")
          .add("target_comps_s", &C::target_comps_s, Unit::seconds,
               "the program's computation between starting the collective and waiting for it, "
               "on every core of the rank; every message with every computation is a cell")
          .add("setups", &C::setups, kAdviseSetupNames, "the set-ups asked for, in order")
          .add("margin", &C::margin, Unit::ratio,
               "a simpler set-up whose time per iteration is within this of the fastest's is "
               "advised instead")
          .add("iterations", &C::iterations, Unit::count, "iterations measured per set-up")
          .add("warmup", &C::warmup, Unit::count, "unrecorded iterations per set-up")
          .add("calibration_runs", &C::calibration_runs, Unit::count,
               "runs per calibration step (their median is used)")
          .add("tolerance", &C::tolerance, Unit::ratio, "calibration tolerance")
          .add("max_bytes", &C::max_bytes, Unit::bytes, "largest send + receive buffers per rank")
          .add("patience", &C::patience, Unit::count, "clock sync: min-RTT stop rule")
          .add("sync_span_s", &C::sync_span_s, Unit::seconds, "time between the first two syncs")
          .add("from_report", &C::from_report, Unit::none,
               "--from: the program's overlap-run report op, msg_bytes and target_comp_s were "
               "read from (options given beside it win); empty without --from")
          .add("from_loop", &C::from_loop, Unit::none,
               "--from: the call site read and what it gave; empty without --from");
  return s;
}

const Schema<AdvisePoint>& advise_point_schema() {
  using P = AdvisePoint;
  static const Schema<P> s =
      Schema<P>()
          .add("cell_bytes", &P::cell_bytes, Unit::bytes,
               "the cell's message size as asked; null: the cell is a time of MPI's own")
          .add("cell_comm_s", &P::cell_comm_s, Unit::seconds,
               "the cell's time of MPI's own collective (no size asked); null with a size")
          .add("cell_comp_s", &P::cell_comp_s, Unit::seconds,
               "the cell's computation; null for the overall point (every cell)")
          .add("setup", &P::setup, kAdviseSetupNames,
               "the progress set-up measured; advice (a cell's verdict, after its set-ups); "
               "overall (the one set-up for every cell of a grid, last)")
          .add("status", &P::status, kAdviseStatusNames,
               "measured; skipped (not available in this run: reason says why and how to "
               "measure it); invalid (measured but not usable: reason)")
          .add("reason", &P::reason, Unit::none, "one line; a note or empty when measured")
          .add("how", &P::how, Unit::none,
               "the command line or environment that gives a program this set-up; for the "
               "advice, the recommended one's")
          .add("threads", &P::threads, Unit::count, "computation threads per rank")
          .add("free_cores", &P::free_cores, Unit::count,
               "cores per rank the computation leaves to progress")
          .add("progress", &P::progress, Unit::none,
               "liboverlap's policy in effect (after its fallbacks); empty for MPI's own")
          .add("msg_bytes", &P::msg_bytes, Unit::bytes, "message size per rank")
          .add("comp_size", &P::comp_size, Unit::count, "GEMM order per computation thread")
          .add("work_ratio", &P::work_ratio, Unit::ratio,
               "this set-up's total computation over the all-core set-ups' (1 but for "
               "rounding: the same work on fewer threads)")
          .spread("t_iter", "_s", &P::t_iter, Unit::seconds,
                  "time per iteration of the program's loop run back to back (start the "
                  "collective, compute, wait): 5 blocks of `iterations`, each from the sync "
                  "barrier (a block a rank entered late is run again), interleaved with the "
                  "cell's other set-ups' blocks; per block the slowest rank's mean; median "
                  "over blocks")
          .add("loop_blocks_s", &P::loop_blocks_s, Unit::seconds,
               "the loop's kept blocks in the order run: time per iteration, slowest rank "
               "(empty when not measured)")
          .add("loop_starts_s", &P::loop_starts_s, Unit::seconds,
               "when each of those blocks started: rank 0's clock, from the start of the "
               "cell's loops (the set-ups' blocks interleave)")
          .add("comp_cost", &P::comp_cost, Unit::ratio,
               "the computation alone on this set-up's threads over the computation alone on "
               "every core, measured side by side: what a freed core costs (1 on every core)")
          .add("r_overhead", &P::r_overhead, Unit::ratio,
               "nbc's r_overhead (one iteration between sync barriers), median")
          .add("r_comp_slowdown", &P::r_comp_slowdown, Unit::ratio, "nbc's r_comp_slowdown, median")
          .section("nbc", &P::nbc, nbc_point_schema(),
                   "the whole measurement, as overlap-bench nbc records a point")
          .add("recommended", &P::recommended, kAdviseSetupNames,
               "advice: the set-up to use (advice_rule: the simplest within margin of the "
               "fastest)")
          .add("predicted_s", &P::predicted_s, Unit::seconds,
               "advice: the recommended set-up's time per iteration")
          .add("baseline", &P::baseline, kAdviseSetupNames,
               "advice: what the program runs today (MPI's own, as launched)")
          .add("baseline_s", &P::baseline_s, Unit::seconds, "advice: the baseline's time")
          .add("speedup", &P::speedup, Unit::ratio, "advice: baseline_s / predicted_s")
          .add("worst_loss", &P::worst_loss, Unit::ratio,
               "overall: the recommended set-up's largest t_iter over a cell's fastest, less 1")
          .add("cells_within", &P::cells_within, Unit::count,
               "overall: the cells where it is within margin of the fastest")
          .add("cells", &P::cells, Unit::count, "overall: the cells with a measured set-up")
          .reasons(&P::null_reasons)
          .add("elapsed_s", &P::elapsed_s, Unit::seconds,
               "wall time of this point (a set-up: its nbc point and its loop's blocks)");
  return s;
}

bool AdvisePoint::same_cell(const AdvisePoint& o) const {
  const auto close = [](double a, double b) { return std::abs(a - b) <= 1e-9 * std::max(a, b); };
  const bool comm = cell_comm_s.has_value() == o.cell_comm_s.has_value() &&
                    (!cell_comm_s || close(*cell_comm_s, *o.cell_comm_s));
  const bool comp = cell_comp_s.has_value() == o.cell_comp_s.has_value() &&
                    (!cell_comp_s || close(*cell_comp_s, *o.cell_comp_s));
  return cell_bytes == o.cell_bytes && comm && comp;
}

bool AdvisePoint::same_key(const AdvisePoint& o) const { return setup == o.setup && same_cell(o); }

}  // namespace overlap::bench
