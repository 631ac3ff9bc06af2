// What `overlap-bench impact` records (r_MPI_impact, nbc-overlap paper sec. 3.2.1): its
// configuration and one record per computation time with a row per rank, each with the
// schema that names its fields.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "base/record_schema.hpp"
#include "bench/common/cpu_record.hpp"
#include "bench/common/implementation.hpp"
#include "bench/common/result_kind.hpp"

namespace overlap::bench {

struct ImpactConfig {
  std::vector<double> comp_times_s;
  int runs = 11;  // median over this many runs
  double tolerance = 0.1;
  double max_bytes = 1024.0 * 1024 * 1024;
  std::optional<ProgressPolicy> progress;  // liboverlap started (idle) with this policy
};
const Schema<ImpactConfig>& impact_config_schema();

struct ImpactRank {
  int rank = 0;
  std::string host;
  long comp_size = 0;
  double t_comp_ref_s = 0;          // before MPI_Init
  double t_comp_passive_mpi_s = 0;  // after, MPI idle
  double r_mpi_impact = 0;
};
const Schema<ImpactRank>& impact_rank_schema();

struct ImpactPoint {
  double target_comp_s = 0;
  bool valid = false;
  std::string invalid_reason;
  std::optional<double> r_mpi_impact_max;
  std::optional<double> r_mpi_impact_median;
  std::vector<ImpactRank> ranks;  // empty when invalid
  // CPU before MPI_Init (comp_alone) and with MPI idle (overlapped), and the decomposition
  // of the loss: what the idle library's and liboverlap's threads take (docs/cpu-accounting.md).
  std::optional<CpuAccounting> cpu;
  std::optional<CpuShares> decomposition;
  std::map<std::string, std::string> null_reasons;

  bool same_key(const ImpactPoint& o) const { return target_comp_s == o.target_comp_s; }
};
const Schema<ImpactPoint>& impact_point_schema();

// 3: cpu, decomposition, null_reasons (issue 13)
inline constexpr int kImpactSchemaVersion = 3;

inline const ResultKind<ImpactConfig, ImpactPoint> kImpactResult{
    "impact",
    kImpactSchemaVersion,
    impact_config_schema,
    impact_point_schema,
    {{"target_comp_s", "comp", 10},
     {"r_mpi_impact_max", "r_impact max", 12},
     {"r_mpi_impact_median", "median", 8}},
    1,
    "one computation time, with a row per rank",
    "ranks",
    {{"rank", "rank", 5},
     {"host", "host", 16},
     {"comp_size", "n", 6},
     {"t_comp_ref_s", "before MPI", 11},
     {"t_comp_passive_mpi_s", "MPI idle", 11},
     {"r_mpi_impact", "r_impact", 9}}};

}  // namespace overlap::bench
