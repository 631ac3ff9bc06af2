// overlap-run's report, written at MPI_Finalize when --report FILE is set: each rank
// symbolises its own call sites and touch sites (addresses differ between processes),
// rank 0 gathers the ranks' records, writes one JSON file (docs/result-format.md,
// "overlap-run") and prints a one-screen summary on stderr.
#pragma once

namespace overlap::intercept {

struct Runtime;

// Collective over MPI_COMM_WORLD (every rank calls it in MPI_Finalize).
void write_run_report(Runtime& rt);

}  // namespace overlap::intercept
