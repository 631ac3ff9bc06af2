#include "output/sync_console.hpp"

#include <fmt/format.h>
#include <fmt/ostream.h>

#include "base/duration.hpp"

namespace overlap::output {

void print_sync(std::ostream& out, const bench::RunContext& ctx, const bench::SyncRecord& record) {
  fmt::print(out, "overlap-bench sync: {} processes, {}, clock {}\n", ctx.size, ctx.mpi_library,
             ctx.clock_source);
  if (record.trivial) {
    fmt::print(out, "one process: the sync is trivial (rank 0's clock is the global clock)\n");
    return;
  }
  const auto& c = record.config;
  fmt::print(out, "{} passes over {}, min-RTT patience {}; verified {} after the last pass\n\n",
             c.passes, format_duration(c.span_s), c.estimator.patience,
             format_duration(record.verify_elapsed_s));
  fmt::print(out, "{:>5}  {:<16} {:>12} {:>11} {:>10} {:>14} {:>14} {:>14}\n", "rank", "host",
             "offset", "drift ppm", "min RTT", "resid offset", "resid drift",
             c.model_scheme == clock::SyncScheme::log ? "resid linear" : "resid log");
  for (const auto& r : record.ranks) {
    fmt::print(out, "{:>5}  {:<16} {:>12} {:>11.3f} {:>10} {:>14} {:>14} {:>14}\n", r.rank,
               ctx.hosts.at(static_cast<std::size_t>(r.rank)), format_duration(r.offset_s),
               r.drift_ppm, format_duration(r.rtt_min_s), format_duration(r.residual_offset_only_s),
               format_duration(r.residual_drift_s), format_duration(r.residual_drift_other_s));
  }
  fmt::print(out, "\n{:<8} {:>12} {:>7} {:>10}\n", "scheme", "pass time", "steps", "exchanges");
  for (const auto* s : {&record.log, &record.linear}) {
    fmt::print(out, "{:<8} {:>12} {:>7} {:>10}\n", s->scheme, format_duration(s->sync_time_s),
               s->steps, s->exchanges);
  }
  fmt::print(out, "\nbarrier exit skew (median of {}): sync barrier {}, MPI_Barrier {}",
             c.barrier_iterations, format_duration(record.barrier_skew_s),
             format_duration(record.mpi_barrier_skew_s));
  fmt::print(out, "; late iterations {}, final window {}\n", record.barrier_late_iterations,
             format_duration(record.barrier_final_window_s));
}

}  // namespace overlap::output
