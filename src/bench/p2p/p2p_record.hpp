// What `overlap-bench p2p` records: its configuration and one point per (implementation,
// message size, computation time), each with the schema that names its fields.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "base/enum_names.hpp"
#include "base/record_schema.hpp"
#include "bench/common/cpu_record.hpp"
#include "bench/common/implementation.hpp"
#include "bench/common/result_kind.hpp"
#include "measure/statistics.hpp"

namespace overlap::bench {

// blocking: MPI_Send/MPI_Recv as written; overlap_run: the same code measured while it
// runs under overlap-run (the bench detects the interception and records it under this
// name); nonblocking: MPI_Isend/MPI_Irecv + compute + MPI_Wait, the hand-written ideal,
// progressed by MPI alone; nonblocking_liboverlap: the same with liboverlap's engine
// driving MPI during the computation (OVX_Progress_begin/_end, policy --progress).
enum class P2pImpl { blocking, nonblocking, overlap_run, nonblocking_liboverlap, blocking_pmpi };

inline constexpr EnumNames<P2pImpl, 5> kP2pImplNames{
    "implementation",
    {{{P2pImpl::blocking, "blocking"},
      {P2pImpl::nonblocking, "nonblocking"},
      {P2pImpl::nonblocking_liboverlap, "nonblocking-liboverlap"},
      {P2pImpl::overlap_run, "overlap-run"},
      {P2pImpl::blocking_pmpi, "blocking-pmpi"}}}};

struct P2pConfig {
  std::vector<long> sizes_bytes;
  std::vector<double> comp_times_s;
  std::vector<P2pImpl> impls{P2pImpl::blocking, P2pImpl::nonblocking};
  ProgressPolicy progress = ProgressPolicy::automatic;  // liboverlap's, for nonblocking-liboverlap
  int iterations = 20;
  int warmup = 2;
  int calibration_runs = 5;
  double tolerance = 0.1;
  int patience = 100;
  double sync_span_s = 1.0;
};
const Schema<P2pConfig>& p2p_config_schema();

struct P2pPoint {
  P2pImpl impl = P2pImpl::blocking;
  long msg_bytes = 0;
  double target_comp_s = 0;
  bool intercepted = false;
  bool valid = false;
  std::string invalid_reason;
  std::optional<long> work_units;
  int iterations = 0;
  int discarded = 0;           // runs with computation (behind t_iter)
  int discarded_pingpong = 0;  // this implementation's runs without computation (t_pingpong)
  int discarded_comm = 0;      // MPI's own round trips (t_comm), shared by the unit's points
  // overlap-run only: blocking calls of ranks 0 and 1 in the timed round trips (with and
  // without computation) and how many of them it deferred.
  std::optional<long> blocking_calls;
  std::optional<long> deferred_calls;
  std::optional<measure::Spread> t_iter;  // the ping-pong with computation, round trip
  std::optional<double> t_pingpong_s;     // this implementation's ping-pong, no computation
  std::optional<double> latency_s;        // t_pingpong / 2
  std::optional<double> bandwidth_Bps;    // msg_bytes / latency_s
  std::optional<double> t_comm_s;         // MPI's own round trip (Irecv/Isend + Wait)
  std::optional<double> t_comp_s;         // both computation periods alone
  std::optional<double> optimal_s;        // max(t_comp, t_comm)
  std::optional<double> overlap_ratio;
  std::optional<double> speedup_vs_blocking;
  std::optional<double> ratio_to_optimal;
  // blocking / overlap-run points: their round trip over blocking-pmpi's, alternating.
  std::optional<double> pingpong_vs_pmpi;
  // Ranks 0 and 1: MPI's own round trips (comm_alone), the computation alone, this
  // implementation's round trips with computation (overlapped); docs/cpu-accounting.md.
  std::optional<CpuAccounting> cpu;
  std::optional<CpuShares> decomposition;
  std::map<std::string, std::string> null_reasons;
  double elapsed_s = 0;

  bool same_key(const P2pPoint& o) const {
    return msg_bytes == o.msg_bytes && target_comp_s == o.target_comp_s;
  }
};
const Schema<P2pPoint>& p2p_point_schema();

// 2: discarded_pingpong, discarded_comm, blocking_calls, deferred_calls; the overlap-run
// comparisons null where nothing was deferred; metadata.overlap_run.
// 3: impl nonblocking-liboverlap, config.progress, latency_s and bandwidth_Bps.
// 4: cpu, decomposition (issue 13).
// 5: impl blocking-pmpi, pingpong_vs_pmpi.
inline constexpr int kP2pSchemaVersion = 5;

inline const ResultKind<P2pConfig, P2pPoint> kP2pResult{
    "p2p",
    kP2pSchemaVersion,
    p2p_config_schema,
    p2p_point_schema,
    {{"impl", "impl", 12},
     {"msg_bytes", "msg", 10},
     {"target_comp_s", "comp", 9},
     {"t_iter_s", "t_iter", 10},
     {"t_comm_s", "t_comm", 10},
     {"t_comp_s", "t_comp", 10},
     {"latency_s", "latency", 10},
     {"overlap_ratio", "overlap", 8},
     {"speedup_vs_blocking", "speedup", 8}},
    3,
    "one (size, computation time), every implementation"};

}  // namespace overlap::bench
