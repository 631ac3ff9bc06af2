// `overlap-bench sync`: synchronise the group's clocks, then check how good that was.
// Runs log and linear scheme passes interleaved over `span`, times them, measures
// barrier exit skew (ours vs MPI_Barrier), and after `verify_after` compares each rank's
// models with a fresh direct min-RTT measurement against rank 0. Produces a record;
// prints nothing.
#pragma once

#include <mpi.h>

#include <string>
#include <vector>

#include "bench/common/benchmark.hpp"
#include "bench/sync/sync_record.hpp"
#include "clock/clock_source.hpp"

namespace overlap::bench {

// Collective. The full record is meaningful on rank 0.
// `hosts`: each rank's host name, for the per-rank rows.
SyncRecord run_sync(MPI_Comm comm, const clock::ClockSource& clock, const SyncConfig& config,
                    const std::vector<std::string>& hosts);

const Benchmark<SyncConfig, SyncRecord>& sync_benchmark();

}  // namespace overlap::bench
