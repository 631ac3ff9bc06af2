// What `overlap-bench p2p` derives from what it measured, as pure functions (unit-tested):
// why a point is invalid when a whole set of its round trips was discarded, and a valid
// point's derived numbers, each null with its reason when it cannot be computed or would
// not say what its name says (overlap-run deferred nothing).
#pragma once

#include <optional>
#include <string>

#include "bench/p2p/p2p_record.hpp"

namespace overlap::bench {

// "" when both sets kept a round trip; else one line naming the empty set(s).
std::string p2p_discard_reason(int iterations, bool with_comp_empty, bool without_comp_empty);

struct P2pInputs {
  std::optional<double> t_comm;           // MPI's own round trip; null: all discarded
  std::optional<double> t_comp;           // both computation periods alone
  std::optional<double> blocking_t_iter;  // the plain blocking code's, same unit and run
  // The blocking code's round trip over blocking-pmpi's, measured alternating in one set
  // (null when either was not listed or every such round trip was discarded).
  std::optional<double> pmpi_ratio;
  int iterations = 0;        // round trips per set, asked for
  bool intercepted = false;  // the run is under overlap-run
  long min_size_bytes = 0;   // its --min-size (when intercepted)
};

// Sets t_comm_s, t_comp_s, latency_s and bandwidth_Bps (from t_pingpong_s), optimal_s,
// overlap_ratio, ratio_to_optimal, speedup_vs_blocking and, on blocking and overlap-run
// points, pingpong_vs_pmpi of a valid point (t_iter set;
// msg_bytes, t_pingpong_s, deferred_calls as measured), with null_reasons for those left
// null.
void derive_p2p_numbers(P2pPoint& p, const P2pInputs& in);

}  // namespace overlap::bench
