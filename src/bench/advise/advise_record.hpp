// What `overlap-bench advise` records: its configuration, one point per progress
// set-up measured (or skipped, with why) at the user's message and computation, and a last
// point, the advice, chosen from the others by advice_rule.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "base/enum_names.hpp"
#include "base/record_schema.hpp"
#include "bench/common/collective.hpp"
#include "bench/common/result_kind.hpp"
#include "bench/nbc/nbc_record.hpp"
#include "measure/statistics.hpp"

namespace overlap::bench {

inline constexpr int kAdviseSchemaVersion = 3;

// The ways a program can progress its nonblocking communication, simplest first (the
// advice prefers the earlier of two within its margin). `+core`: one core of each rank
// left free, the computation on one thread fewer doing the same work. `advice`: a cell's
// verdict; `overall`: the one set-up for every cell of a grid (after the cells).
enum class AdviseSetup {
  mpi,             // MPI's own nonblocking calls, as the program runs today
  mpi_async,       // MPI's own asynchronous progress (MPICH_ASYNC_PROGRESS, Open MPI's TCP thread)
  caller,          // liboverlap, progress inside the program's MPI calls
  shared,          // liboverlap's progress thread, unbound, beside the computation
  dedicated,       // its thread bound to the rank's last core, which also computes
  shared_core,     // shared, one core left free
  dedicated_core,  // dedicated on the core left free
  advice,
  overall,
};

inline constexpr EnumNames<AdviseSetup, 9> kAdviseSetupNames{
    "set-up",
    {{{AdviseSetup::mpi, "mpi"},
      {AdviseSetup::mpi_async, "mpi-async"},
      {AdviseSetup::caller, "caller"},
      {AdviseSetup::shared, "shared"},
      {AdviseSetup::dedicated, "dedicated"},
      {AdviseSetup::shared_core, "shared+core"},
      {AdviseSetup::dedicated_core, "dedicated+core"},
      {AdviseSetup::advice, "advice"},
      {AdviseSetup::overall, "overall"}}}};

enum class AdviseStatus { measured, skipped, invalid };

inline constexpr EnumNames<AdviseStatus, 3> kAdviseStatusNames{
    "status",
    {{{AdviseStatus::measured, "measured"},
      {AdviseStatus::skipped, "skipped"},
      {AdviseStatus::invalid, "invalid"}}}};

// The grid: every message (a size, or where none is given a time MPI's own takes) with
// every computation is a cell; each cell measures every set-up and has its advice. One
// cell by default.
inline constexpr int kMaxAdviseCells = 16;

struct AdviseConfig {
  Collective op = Collective::allreduce;
  std::vector<long> sizes_bytes;                 // the user's message sizes; none: comm times
  std::vector<double> target_comms_s = {0.004};  // MPI's own collective's time (no sizes)
  std::vector<double> target_comps_s = {0.004};  // the computation between start and wait
  std::vector<AdviseSetup> setups;               // asked for, in the order measured
  double margin = 0.03;  // a simpler set-up within this of the fastest is advised
  int iterations = 15;
  int warmup = 2;
  int calibration_runs = 5;
  double tolerance = 0.1;
  double max_bytes = 1024.0 * 1024 * 1024;
  int patience = 100;
  double sync_span_s = 1.0;
  // --from: the program's overlap-run report the loop was read from, and what was read
  // (program_loop.hpp); empty without --from.
  std::string from_report;
  std::string from_loop;
};
const Schema<AdviseConfig>& advise_config_schema();

struct AdvisePoint {
  // The cell: the message asked for (a size, or MPI's own time when no size was given)
  // and the computation.
  std::optional<long> cell_bytes;
  std::optional<double> cell_comm_s;
  std::optional<double> cell_comp_s;  // null only for the overall point
  AdviseSetup setup = AdviseSetup::mpi;
  AdviseStatus status = AdviseStatus::skipped;
  std::string reason;  // skipped or invalid: why; measured: a note, or empty
  // Set-ups: how the program gets it (command line or environment).
  std::string how;
  std::optional<int> threads;     // computation threads per rank
  std::optional<int> free_cores;  // cores per rank the computation leaves to progress
  std::string progress;           // liboverlap's policy in effect (after fallbacks), or empty
  std::optional<long> msg_bytes;
  std::optional<long> comp_size;     // GEMM order per thread
  std::optional<double> work_ratio;  // this set-up's total work / the all-cores set-ups'
  // The headline numbers: time per iteration of the loop run back to back (start, compute,
  // wait), the computation alone on this set-up's threads over the computation on every
  // core, and nbc's ratios.
  std::optional<measure::Spread> t_iter;
  // The loop's kept blocks, in the order run: each one's time per iteration (slowest rank)
  // and its start (rank 0's global clock, from the start of the cell's loops).
  std::vector<double> loop_blocks_s, loop_starts_s;
  std::optional<double> r_overhead, r_comp_slowdown, comp_cost;
  std::optional<NbcPoint> nbc;  // the full measurement, as `overlap-bench nbc` records it
  // The advice point.
  std::optional<AdviseSetup> recommended;
  std::optional<double> predicted_s;    // the recommended set-up's t_iter median
  std::optional<AdviseSetup> baseline;  // what the program runs today (mpi or mpi-async)
  std::optional<double> baseline_s;
  std::optional<double> speedup;  // baseline_s / predicted_s
  // The overall point: the recommended set-up's largest t_iter / a cell's fastest - 1, and
  // the cells where it is within the margin of the fastest, of those measured.
  std::optional<double> worst_loss;
  std::optional<int> cells_within, cells;
  std::map<std::string, std::string> null_reasons;
  double elapsed_s = 0;

  bool same_key(const AdvisePoint& other) const;
  bool same_cell(const AdvisePoint& other) const;
};
const Schema<AdvisePoint>& advise_point_schema();

inline const ResultKind<AdviseConfig, AdvisePoint> kAdviseResult{
    "advise",
    kAdviseSchemaVersion,
    advise_config_schema,
    advise_point_schema,
    {{"setup", "set-up", 15},
     {"msg_bytes", "msg", 9},
     {"cell_comp_s", "work", 8},
     {"status", "status", 9},
     {"threads", "thr", 4},
     {"t_iter_s", "t_iter", 10},
     {"comp_cost", "comp", 6},
     {"r_overhead", "r_ovh", 7},
     {"r_comp_slowdown", "r_slow", 7},
     {"recommended", "advice", 15},
     {"speedup", "speedup", 8},
     {"reason", "note", 0}},
    1,
    "one progress set-up, or the advice"};

}  // namespace overlap::bench
