#include "bench/nbc/impact_record.hpp"

namespace overlap::bench {

const Schema<ImpactConfig>& impact_config_schema() {
  using C = ImpactConfig;
  static const Schema<C> s =
      Schema<C>()
          .add("comp_times_s", &C::comp_times_s, Unit::seconds, "target computation times")
          .add("runs", &C::runs, Unit::count, "runs per size and phase (median)")
          .add("tolerance", &C::tolerance, Unit::ratio, "calibration tolerance")
          .add("max_bytes", &C::max_bytes, Unit::bytes, "largest matrices per rank")
          .add("progress", &C::progress, kProgressPolicyNames,
               "liboverlap's engine started (idle) with this policy; null: not started");
  return s;
}

const Schema<ImpactRank>& impact_rank_schema() {
  using R = ImpactRank;
  static const Schema<R> s =
      Schema<R>()
          .add("rank", &R::rank, Unit::none, "rank")
          .add("host", &R::host, Unit::none, "its host")
          .add("comp_size", &R::comp_size, Unit::none, "GEMM order n this rank calibrated")
          .add("t_comp_ref_s", &R::t_comp_ref_s, Unit::seconds,
               "computation before MPI_Init (median of runs, slowest thread)")
          .add("t_comp_passive_mpi_s", &R::t_comp_passive_mpi_s, Unit::seconds,
               "the same after MPI_Init, MPI idle")
          .add("r_mpi_impact", &R::r_mpi_impact, Unit::ratio, "t_comp_passive_mpi / t_comp_ref");
  return s;
}

const Schema<ImpactPoint>& impact_point_schema() {
  using P = ImpactPoint;
  static const Schema<P> s =
      Schema<P>()
          .add("target_comp_s", &P::target_comp_s, Unit::seconds, "computation time asked for")
          .add("valid", &P::valid, Unit::none, "false when a rank could not calibrate")
          .add("invalid_reason", &P::invalid_reason, Unit::none, "one line; empty when valid")
          .add("r_mpi_impact_max", &P::r_mpi_impact_max, Unit::ratio, "the worst rank's ratio")
          .add("r_mpi_impact_median", &P::r_mpi_impact_median, Unit::ratio, "the median over ranks")
          .section("ranks", &P::ranks, impact_rank_schema(),
                   "one row per rank (empty when invalid)")
          .section("cpu", &P::cpu, cpu_accounting_schema(),
                   std::string(kCpuSectionDoc) +
                       "; per timed run: comp_alone before MPI_Init, overlapped with MPI "
                       "initialised and idle, comm_alone null",
                   true)
          .section("decomposition", &P::decomposition, cpu_shares_schema(),
                   std::string(kDecompositionSectionDoc) +
                       "; of the computation with MPI idle against before MPI_Init (means of "
                       "the runs; r_mpi_impact is a median)",
                   true)
          .reasons(&P::null_reasons);
  return s;
}

}  // namespace overlap::bench
