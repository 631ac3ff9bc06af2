#include "bench/p2p/p2p_derived.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace overlap::bench {

std::string p2p_discard_reason(int iterations, bool with_comp_empty, bool without_comp_empty) {
  if (!with_comp_empty && !without_comp_empty) return "";
  const char* which = with_comp_empty && without_comp_empty
                          ? "with computation (t_iter) and all without (t_pingpong)"
                      : with_comp_empty ? "with computation (t_iter)"
                                        : "without computation (t_pingpong)";
  return fmt::format(
      "all {} round trips {} were discarded: in each, a rank left the sync barrier late",
      iterations, which);
}

void derive_p2p_numbers(P2pPoint& p, const P2pInputs& in) {
  p.t_comm_s = in.t_comm;
  p.t_comp_s = in.t_comp;
  if (p.t_pingpong_s && *p.t_pingpong_s > 0) {
    // The ping-pong without computation: half its round trip is the one-way latency.
    p.latency_s = *p.t_pingpong_s / 2;
    p.bandwidth_Bps = static_cast<double>(p.msg_bytes) / *p.latency_s;
  } else {
    p.null_reasons["latency_s"] = p.null_reasons["bandwidth_Bps"] =
        "no ping-pong time without computation (t_pingpong_s)";
  }
  const double t = p.t_iter->median;
  if (in.t_comm && in.t_comp) {
    p.optimal_s = std::max(*in.t_comm, *in.t_comp);
    p.ratio_to_optimal = t / *p.optimal_s;
    const double shorter = std::min(*in.t_comm, *in.t_comp);
    if (shorter > 0) {
      p.overlap_ratio = (*in.t_comm + *in.t_comp - t) / shorter;
    } else {
      p.null_reasons["overlap_ratio"] = "min(t_comp, t_comm) is 0: nothing to hide";
    }
  } else {
    const std::string late = fmt::format(
        "all {} of MPI's own round trips (t_comm) were discarded: in each, a rank left the "
        "sync barrier late",
        in.iterations);
    for (const char* f : {"t_comm_s", "optimal_s", "overlap_ratio", "ratio_to_optimal"})
      p.null_reasons[f] = late;
  }
  if (p.deferred_calls && *p.deferred_calls == 0) {
    // The blocking code ran as written: these would be plain blocking's numbers.
    const std::string why =
        p.msg_bytes < in.min_size_bytes
            ? fmt::format("below overlap-run's --min-size ({} B): not intercepted",
                          in.min_size_bytes)
            : std::string("overlap-run deferred none of these calls (its --report says why)");
    p.overlap_ratio.reset();
    p.ratio_to_optimal.reset();
    p.null_reasons["overlap_ratio"] = why;
    p.null_reasons["ratio_to_optimal"] = why;
  }
  if (p.impl == P2pImpl::blocking || p.impl == P2pImpl::overlap_run) {
    if (in.pmpi_ratio) {
      p.pingpong_vs_pmpi = in.pmpi_ratio;
    } else {
      p.null_reasons["pingpong_vs_pmpi"] =
          "blocking-pmpi was not measured beside it at this point (or its point is invalid, or "
          "every alternating round trip was discarded)";
    }
  }
  if (in.blocking_t_iter && t > 0) {
    p.speedup_vs_blocking = *in.blocking_t_iter / t;
  } else {
    p.null_reasons["speedup_vs_blocking"] =
        in.intercepted ? "under overlap-run: the plain blocking code runs in the plain run"
                       : "blocking was not measured (or is invalid) at this point";
  }
}

}  // namespace overlap::bench
