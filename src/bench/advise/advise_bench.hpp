// `overlap-bench advise`: which way of progressing nonblocking communication should this
// program use on this allocation? For the program's collective, message size (or MPI's
// time for it) and computation, it measures, one after another in one run and at the same
// message and the same work, each set-up available (AdviseSetup: MPI's own, MPI's own
// asynchronous progress where this launch has it on, liboverlap caller, shared and
// dedicated, shared and dedicated with one core per rank left free): as `nbc` measures a
// point (the evidence: r_overhead, r_comp_slowdown), then the program's loop run back to
// back (the time per iteration the advice compares), then chooses with advice_rule. A
// set-up that cannot be measured in this run is recorded as skipped, with why and how to
// measure it. docs/which-configuration.md.
#pragma once

#include "bench/advise/advise_record.hpp"
#include "bench/common/benchmark.hpp"

namespace overlap::bench {

const Benchmark<AdviseConfig, AdvisePoint>& advise_benchmark();

}  // namespace overlap::bench
