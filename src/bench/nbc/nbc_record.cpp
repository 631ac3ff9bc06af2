#include "bench/nbc/nbc_record.hpp"

#include <algorithm>
#include <cmath>

namespace overlap::bench {

const Schema<NbcConfig>& nbc_config_schema() {
  using C = NbcConfig;
  static const Schema<C> s =
      Schema<C>()
          .add("impls", &C::impls, kImplementationNames,
               "whose collectives, measured point by point: the MPI library's or liboverlap's")
          .add("progress", &C::progress, kProgressPolicyNames, "liboverlap's progress policy")
          .add("ops", &C::ops, kNonblockingNames,
               "the collectives of the sweep (ihalo: a point-to-point exchange)")
          .add("comm_times_s", &C::comm_times_s, Unit::seconds, "target communication times")
          .add("comp_times_s", &C::comp_times_s, Unit::seconds, "target computation times")
          .add("iterations", &C::iterations, Unit::count, "iterations measured per point")
          .add("warmup", &C::warmup, Unit::count, "unrecorded iterations per point")
          .add("calibration_runs", &C::calibration_runs, Unit::count,
               "runs per calibration step (their median is used)")
          .add("tolerance", &C::tolerance, Unit::ratio, "calibration tolerance")
          .add("max_bytes", &C::max_bytes, Unit::bytes, "largest send + receive buffers per rank")
          .add("test_interval_bytes", &C::test_interval_bytes, Unit::bytes,
               "MPI_Test every this many bytes of message during the computation; null: none "
               "(Algorithm 1)")
          .add("patience", &C::patience, Unit::count, "clock sync: min-RTT stop rule")
          .add("sync_span_s", &C::sync_span_s, Unit::seconds, "time between the first two syncs")
          .add("peer_iterations", &C::peer_iterations, Unit::count,
               "iterations of each loop of the peers' own protocols per point (OSU and IMB "
               "columns); 0: not run, the columns are null");
  return s;
}

const Schema<NbcSamples>& nbc_samples_schema() {
  using S = NbcSamples;
  static const Schema<S> s =
      Schema<S>()
          .add("t_comm_ref_s", &S::t_comm_ref_s, Unit::seconds, "per kept iteration")
          .add("t_comp_ref_s", &S::t_comp_ref_s, Unit::seconds, "per kept iteration")
          .add("t_measured_s", &S::t_measured_s, Unit::seconds, "per kept iteration")
          .add("t_call_s", &S::t_call_s, Unit::seconds, "per kept iteration, pacing rank")
          .add("t_comp_s", &S::t_comp_s, Unit::seconds, "per kept iteration, pacing rank")
          .add("t_wait_s", &S::t_wait_s, Unit::seconds, "per kept iteration, pacing rank")
          .add("t_comp_max_s", &S::t_comp_max_s, Unit::seconds,
               "per kept iteration, the slowest rank's t3 - t2")
          .add("pacing_rank", &S::pacing_rank, Unit::none,
               "per kept iteration, the rank whose own t4 - t1 was the largest");
  return s;
}

const Schema<NbcRankMeans>& nbc_rank_means_schema() {
  using M = NbcRankMeans;
  static const Schema<M> s =
      Schema<M>()
          .add("overall_s", &M::overall_s, Unit::seconds, "overlap run t4 - t1: mean")
          .add("call_s", &M::call_s, Unit::seconds, "t2 - t1: mean")
          .add("compute_s", &M::compute_s, Unit::seconds, "t3 - t2, MPI_Test calls included: mean")
          .add("test_s", &M::test_s, Unit::seconds, "inside MPI_Test calls: mean")
          .add("wait_s", &M::wait_s, Unit::seconds, "t4 - t3: mean")
          .add("pure_s", &M::pure_s, Unit::seconds, "the bare collective, local end - start: mean")
          .add("comp_ref_s", &M::comp_ref_s, Unit::seconds, "the bare computation: mean");
  return s;
}

const Schema<NbcPoint>& nbc_point_schema() {
  using P = NbcPoint;
  static const Schema<P> s =
      Schema<P>()
          .add("impl", &P::impl, kImplementationNames, "whose collective")
          .add("op", &P::op, kNonblockingNames, "the collective (ihalo: a point-to-point exchange)")
          .add("target_comm_s", &P::target_comm_s, Unit::seconds, "grid coordinate asked for")
          .add("target_comp_s", &P::target_comp_s, Unit::seconds, "grid coordinate asked for")
          .add("valid", &P::valid, Unit::none,
               "false when a calibration did not converge or no iteration could be kept")
          .add("invalid_reason", &P::invalid_reason, Unit::none, "one line; empty when valid")
          .add("msg_bytes", &P::msg_bytes, Unit::bytes,
               "calibrated message size per rank (docs/nbc-benchmark.md)")
          .add("algorithm", &P::algorithm, Unit::none,
               "liboverlap's algorithm at msg_bytes and P (OVX_Algorithm: the cost model's "
               "choice, or OVERLAP_ALGORITHMS); empty for MPI's own and without msg_bytes")
          .add("comp_size", &P::comp_size, Unit::none, "calibrated computation size (GEMM order n)")
          .add("calibrated_comm_s", &P::calibrated_comm_s, Unit::seconds,
               "what the message size's calibration measured at msg_bytes")
          .add("calibrated_comp_s", &P::calibrated_comp_s, Unit::seconds,
               "what the computation's calibration measured at comp_size")
          .add("calibration_note", &P::calibration_note, Unit::none,
               "why a size is the nearest reachable rather than within the tolerance of its "
               "target (a step in time); empty when both converged")
          .add("iterations", &P::iterations, Unit::count, "iterations kept")
          .add("discarded", &P::discarded, Unit::count,
               "iterations discarded because a rank left a sync barrier late")
          .add("test_calls", &P::test_calls, Unit::count,
               "MPI_Test calls during each overlap run: ceil(msg_bytes / test_interval_bytes) + "
               "1, 0 without --test-interval")
          .spread("t_comm_ref", "_s", &P::t_comm_ref, Unit::seconds,
                  "NBC + Wait alone: max end - min start over ranks, global time; median")
          .spread("t_comp_ref", "_s", &P::t_comp_ref, Unit::seconds,
                  "computation alone, slowest rank; median")
          .spread("t_measured", "_s", &P::t_measured, Unit::seconds,
                  "overlap run: max t4 - min t1 over ranks, global time; median")
          .spread("t_call", "_s", &P::t_call, Unit::seconds, "t2 - t1 of the pacing rank; median")
          .spread("t_comp", "_s", &P::t_comp, Unit::seconds, "t3 - t2 of the pacing rank; median")
          .spread("t_wait", "_s", &P::t_wait, Unit::seconds, "t4 - t3 of the pacing rank; median")
          .spread("t_comp_max", "_s", &P::t_comp_max, Unit::seconds,
                  "t3 - t2 of the slowest rank (r_comp_slowdown's numerator); median")
          .spread("t_in_mpi", "_s", &P::t_in_mpi, Unit::seconds,
                  "t_call + t_wait of the pacing rank; median (r_comm's numerator)")
          .spread("t_test", "_s", &P::t_test, Unit::seconds,
                  "time inside MPI_Test calls of the pacing rank (part of t_comp); null without "
                  "--test-interval")
          .spread("r_overhead", "", &P::r_overhead, Unit::ratio,
                  "(t_measured - max(t_comp_ref, t_comm_ref)) / min(t_comp_ref, t_comm_ref)")
          .spread("r_comm", "", &P::r_comm, Unit::ratio, "t_in_mpi / t_comm_ref")
          .spread("r_comp_slowdown", "", &P::r_comp_slowdown, Unit::ratio,
                  "t_comp_max / t_comp_ref (slowest rank against slowest rank)")
          .add("osu_overlap_pct", &P::osu_overlap_pct, Unit::percent,
               "OSU 7.4's overlap with its own protocol (peers): each rank computes for its "
               "own pure time; means averaged over ranks")
          .add("imb_overlap_pct", &P::imb_overlap_pct, Unit::percent,
               "IMB-NBC's overlap with its own protocol (peers): each rank's work sized to its "
               "own pure time; the rank with the largest overlapped time")
          .add("osu_on_nbc_times_pct", &P::osu_on_nbc_times_pct, Unit::percent,
               "OSU's formula on this point's own iterations (ranks); until schema 5 this was "
               "osu_overlap_pct")
          .add("imb_on_nbc_times_pct", &P::imb_on_nbc_times_pct, Unit::percent,
               "IMB-NBC's formula on this point's own iterations (ranks); until schema 5 this "
               "was imb_overlap_pct")
          .add("comp_speed_spread", &P::comp_speed_spread, Unit::ratio,
               "the slowest rank's mean comp_ref_s over the fastest's (ranks)")
          .add("diagnosis", &P::diagnosis, measure::kDiagnosisNames, "docs/nbc-benchmark.md")
          .add("ratio_diagnosis", &P::ratio_diagnosis, measure::kDiagnosisNames,
               "what the ratios alone say, before the references are checked")
          .add("imprecise", &P::imprecise, Unit::none,
               "why the point is imprecise_reference, one line each with the numbers; empty "
               "otherwise")
          .add("diagnosis_text", &P::diagnosis_text, Unit::none, "one sentence for humans")
          .section("samples", &P::samples, nbc_samples_schema(),
                   "the kept iterations as reduced over ranks (null when invalid)")
          .section("ranks", &P::ranks, nbc_rank_means_schema(),
                   "each rank's means over the kept iterations, in rank order (empty when "
                   "invalid)")
          .section("peers", &P::peers, peer_phase_schema(),
                   "the peers' own protocols at this point's message size (null when not run)")
          .section("cpu", &P::cpu, cpu_accounting_schema(), kCpuSectionDoc)
          .section("decomposition", &P::decomposition, cpu_shares_schema(),
                   kDecompositionSectionDoc)
          .reasons(&P::null_reasons)
          .add("calibration_s", &P::calibration_s, Unit::seconds,
               "wall time this point spent calibrating (0 when the sizes were cached)")
          .add("elapsed_s", &P::elapsed_s, Unit::seconds, "wall time of the whole point");
  return s;
}

bool NbcPoint::same_key(const NbcPoint& o) const {
  const auto close = [](double a, double b) { return std::abs(a - b) <= 1e-9 * std::max(a, b); };
  return impl == o.impl && op == o.op && close(target_comm_s, o.target_comm_s) &&
         close(target_comp_s, o.target_comp_s);
}

}  // namespace overlap::bench
