// `overlap-bench part`: the partitioned-benchmark paper's point-to-point suite (sec. 3)
// over four implementations side by side: `single` (one send after the threads join),
// `multiple` (each thread sends its partition with MPI_Isend), `overlap` (liboverlap's
// partitioned layer) and `mpi` (the MPI library's own MPI_Psend_init family, where it has
// one; elsewhere the points are invalid with that reason). Rank 0 sends with one thread
// per partition, rank 1 receives and records when each partition arrived (Parrived,
// Testsome). Two phases per point: without computation (transfer time, overhead) and with
// the computation and noise asked for (time after the join, perceived bandwidth,
// availability, early-bird share, per-partition ready and arrival times), all on the
// global clock. `--pattern sweep3d|halo3d` runs the paper's application patterns over
// every rank instead (part_pattern_run.hpp). Produces records; prints nothing.
// docs/part-benchmark.md.
#pragma once

#include "bench/common/benchmark.hpp"
#include "bench/part/part_record.hpp"

namespace overlap::bench {

const Benchmark<PartConfig, PartPoint>& part_benchmark();

}  // namespace overlap::bench
