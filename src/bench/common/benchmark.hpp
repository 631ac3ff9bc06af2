// One shape for every benchmark (docs/adding-a-benchmark.md). A benchmark is:
//   - a configuration and a point record, each with its schema, and its ResultKind
//     (<name>_record.hpp): what its result files hold;
//   - its options as data and the function that turns them into a configuration;
//   - a Sweep: the points to measure, and the collective measurement of one;
//   - a Benchmark value that ties them together, and one line in overlap-bench's table of
//     subcommands (apps/command_table.cpp).
// overlap-bench does the rest the same way for all: parsing and validation before
// MPI_Init, threads and their cores, liboverlap's start, the run context, --resume, the
// console table, JSON and CSV files rewritten after every point, the progress bar.
#pragma once

#include <mpi.h>

#include <algorithm>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "base/option_spec.hpp"
#include "bench/common/global_clock.hpp"
#include "bench/common/implementation.hpp"
#include "bench/common/result_kind.hpp"
#include "bench/common/run_context.hpp"
#include "clock/clock_source.hpp"

namespace overlap::bench {

// Decided before MPI_Init (validated input).
struct RunPlan {
  std::vector<std::vector<int>> thread_pus;  // per computation thread, its PUs (none: no compute)
  int dedicated_cores = 0;
};

// What a benchmark gets after MPI_Init.
struct RunResources {
  MPI_Comm comm = MPI_COMM_WORLD;
  const clock::ClockSource* clock = nullptr;
  const RunContext* context = nullptr;  // hosts, sizes
  const RunPlan* plan = nullptr;
  std::shared_ptr<void> before_mpi;  // what the benchmark's before_mpi returned
};

// A run, point by point. `P` has `bool same_key(const P&) const`: whether two points
// belong to the same measured unit (what --resume skips when the file has it).
template <class P>
class Sweep {
 public:
  virtual ~Sweep() = default;
  // Every unit to measure, as a point whose key fields are set, in the order run.
  virtual std::vector<P> keys() const = 0;
  // Collective: measures one unit; its points (one or more) are complete on rank 0.
  virtual std::vector<P> measure(const P& key) = 0;
  // Expected relative cost of a unit, for the ETA.
  virtual double weight(const P&) const { return 1.0; }
  virtual std::optional<double> calibration_s() const { return std::nullopt; }
  virtual std::optional<ClockSyncQuality> clock_quality() const { return std::nullopt; }
  // The points --resume read back from the file (complete on rank 0), before any unit is
  // measured: for a sweep whose last unit is computed from the others (advise's advice).
  virtual void resumed(const std::vector<P>& /*points*/) {}
};

struct BenchmarkTraits {
  bool computes = false;      // computation threads: --threads, --dedicate-cores
  bool resumable = false;     // --resume, and --output/--csv rewritten after every point
  bool global_clock = false;  // --clock (the clock source) applies
  int thread_level = MPI_THREAD_MULTIPLE;
};

template <class C, class P>
struct Benchmark {
  const ResultKind<C, P>* kind;
  const char* help;
  BenchmarkTraits traits;
  std::vector<OptionSpec> (*options)();
  C (*parse)(const OptionValues&);  // throws UsageError; touches no MPI
  // The liboverlap progress policy to start liboverlap with, or nullopt when the run does
  // not use it.
  std::optional<ProgressPolicy> (*liboverlap)(const C&);
  // Before MPI_Init (impact measures the computation there); may be null.
  std::shared_ptr<void> (*before_mpi)(const C&, const RunPlan&);
  // After MPI_Init, collective.
  std::unique_ptr<Sweep<P>> (*start)(const RunResources&, const C&);
  // Added to the default label (e.g. " + liboverlap shared"); may be null.
  std::string (*label_suffix)(const C&) = nullptr;
  // Why liboverlap runs with the policy `liboverlap` returned, for the metadata (null:
  // "--progress <policy>").
  const char* liboverlap_reason = nullptr;
  // Lines rank 0 prints after the table, from every point of the run (advise's answer);
  // may be null.
  std::vector<std::string> (*epilogue)(const C&, const std::vector<P>&) = nullptr;
};

// Benchmark::liboverlap for runs whose --impl list may name liboverlap (`kOverlap`):
// the configured policy when it does, else nullopt.
template <auto kOverlap, class C>
std::optional<ProgressPolicy> liboverlap_when_listed(const C& c) {
  const bool used = std::find(c.impls.begin(), c.impls.end(), kOverlap) != c.impls.end();
  return used ? std::optional(c.progress) : std::nullopt;
}

// Benchmark::liboverlap for runs that never start liboverlap.
template <class C>
std::optional<ProgressPolicy> without_liboverlap(const C&) {
  return std::nullopt;
}

}  // namespace overlap::bench
