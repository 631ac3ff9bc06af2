#include "apps/command_table.hpp"

#include "apps/benchmark_command.hpp"
#include "apps/schema_command.hpp"
#include "bench/advise/advise_bench.hpp"
#include "bench/coll/coll_bench.hpp"
#include "bench/coll/progress_bench.hpp"
#include "bench/nbc/impact_bench.hpp"
#include "bench/nbc/latency_bench.hpp"
#include "bench/nbc/nbc_bench.hpp"
#include "bench/p2p/p2p_bench.hpp"
#include "bench/part/part_bench.hpp"
#include "bench/sync/sync_bench.hpp"

namespace overlap::apps {

const std::vector<CommandEntry>& command_table() {
  static const std::vector<CommandEntry> table = {
      benchmark_entry(bench::sync_benchmark()),   benchmark_entry(bench::nbc_benchmark()),
      benchmark_entry(bench::impact_benchmark()), benchmark_entry(bench::latency_benchmark()),
      benchmark_entry(bench::coll_benchmark()),   benchmark_entry(bench::progress_benchmark()),
      benchmark_entry(bench::part_benchmark()),   benchmark_entry(bench::p2p_benchmark()),
      benchmark_entry(bench::advise_benchmark()), schema_entry(),
  };
  return table;
}

}  // namespace overlap::apps
