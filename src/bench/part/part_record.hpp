// What `overlap-bench part` records (partitioned-benchmark paper, sec. 3): its configuration
// and one point per (implementation, size, partitions), each with the schema that names
// its fields.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "base/record_schema.hpp"
#include "bench/common/implementation.hpp"
#include "bench/common/result_kind.hpp"
#include "measure/statistics.hpp"

namespace overlap::bench {

// single: one send after the threads joined; multiple: each thread sends its partition
// with MPI_Isend; overlap: liboverlap's partitioned layer (OVX_Pready); mpi: the MPI
// library's own MPI_Psend_init family (where it has one).
enum class PartImpl { single, multiple, overlap, mpi };
inline constexpr EnumNames<PartImpl, 4> kPartImplNames{"partitioned implementation",
                                                       {{{PartImpl::single, "single"},
                                                         {PartImpl::multiple, "multiple"},
                                                         {PartImpl::overlap, "overlap"},
                                                         {PartImpl::mpi, "mpi"}}}};

// Per-thread computation time: none (all equal), single (one random thread takes
// compute x (1 + noise)), uniform (each in [compute, compute x (1 + noise)]), gaussian
// (mean compute, standard deviation compute x noise, at least 0).
enum class NoiseModel { none, single, uniform, gaussian };
inline constexpr EnumNames<NoiseModel, 4> kNoiseModelNames{"noise model",
                                                           {{{NoiseModel::none, "none"},
                                                             {NoiseModel::single, "single"},
                                                             {NoiseModel::uniform, "uniform"},
                                                             {NoiseModel::gaussian, "gaussian"}}}};

// p2p: rank 0 to rank 1; halo3d: every rank exchanges a face with each neighbour on a 3-D
// grid; sweep3d: a wavefront on a 2-D grid (docs/part-benchmark.md, "Patterns").
enum class PartPattern { p2p, sweep3d, halo3d };
inline constexpr EnumNames<PartPattern, 3> kPartPatternNames{"pattern",
                                                             {{{PartPattern::p2p, "p2p"},
                                                               {PartPattern::sweep3d, "sweep3d"},
                                                               {PartPattern::halo3d, "halo3d"}}}};

enum class CacheState { hot, cold };
inline constexpr EnumNames<CacheState, 2> kCacheStateNames{
    "cache state", {{{CacheState::hot, "hot"}, {CacheState::cold, "cold"}}}};

struct PartConfig {
  PartPattern pattern = PartPattern::p2p;
  std::vector<PartImpl> impls{PartImpl::single, PartImpl::multiple, PartImpl::overlap,
                              PartImpl::mpi};
  std::vector<long> sizes_bytes;
  std::vector<int> partitions;
  double compute_s = 0.01;
  NoiseModel noise = NoiseModel::none;
  double noise_fraction = 0;
  CacheState cache = CacheState::hot;
  long flush_bytes = 0;              // cold: bytes written before each iteration
  std::string flush_source;          // where the last-level cache size came from
  std::string aggregation = "none";  // liboverlap's overlap_aggregation
  ProgressPolicy progress = ProgressPolicy::automatic;
  int iterations = 10;
  int warmup = 2;
  int patience = 100;
  double sync_span_s = 1.0;
};
const Schema<PartConfig>& part_config_schema();

struct PartPoint {
  PartImpl impl = PartImpl::single;
  long requested_bytes = 0;
  long msg_bytes = 0;  // rounded down to a multiple of partitions
  int partitions = 1;
  bool valid = false;
  std::string invalid_reason;
  int iterations = 0;                         // kept (both phases)
  int discarded = 0;                          // a rank left the sync barrier late
  std::optional<measure::Spread> transfer;    // no computation: start to last arrival
  std::optional<double> overhead;             // transfer / single's transfer
  std::optional<measure::Spread> after_join;  // with computation: join to last arrival
  std::optional<double> perceived_bandwidth_Bps;
  std::optional<double> availability;        // 1 - after_join / single's after_join
  std::optional<double> early_bird_pct;      // bytes arrived before the join, percent
  std::vector<double> ready_s;               // per partition: median time ready, from the start
  std::vector<double> arrive_s;              // per partition: median time arrived, from the start
  std::string grid;                          // sweep3d, halo3d: the process grid, "2x2x1"
  std::optional<measure::Spread> iteration;  // sweep3d, halo3d: start to the last rank done
  std::map<std::string, std::string> null_reasons;
  double elapsed_s = 0;

  bool same_key(const PartPoint& o) const {
    return requested_bytes == o.requested_bytes && partitions == o.partitions;
  }
};
const Schema<PartPoint>& part_point_schema();

inline constexpr int kPartSchemaVersion = 2;  // 2: pattern, grid, iteration

inline const ResultKind<PartConfig, PartPoint> kPartResult{
    "part",
    kPartSchemaVersion,
    part_config_schema,
    part_point_schema,
    {{"impl", "impl", 8},
     {"msg_bytes", "msg", 10},
     {"partitions", "parts", 5},
     {"overhead", "overhead", 8},
     {"iteration_s", "iteration", 10},
     {"after_join_s", "after join", 10},
     {"availability", "avail", 6},
     {"early_bird_pct", "early %", 7},
     {"perceived_bandwidth_Bps", "perceived B/s", 13}},
    3,
    "one (implementation, size, partitions)"};

}  // namespace overlap::bench
