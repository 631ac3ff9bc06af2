// The NBC overlap metrics of the nbc-overlap paper (sec. 3) and their diagnosis (sec. 3.3),
// plus OSU's and IMB's overlap percentages so users can see where the three disagree.
// Pure functions of measured times; a metric that cannot be computed is std::nullopt,
// never a made-up number.
#pragma once

#include <optional>
#include <string_view>
#include <vector>

namespace overlap::measure {

// One point's times, already reduced over ranks and iterations (seconds).
struct OverlapTimes {
  double t_comm_ref = 0;  // NBC + Wait alone
  double t_comp_ref = 0;  // computation alone
  double t_measured = 0;  // Icoll; compute; Wait
  double t_call = 0;      // the Icoll call in the overlap run
  double t_comp = 0;      // the computation in the overlap run
  double t_wait = 0;      // the Wait in the overlap run
};

// (t_measured - max(refs)) / min(refs): 0 perfect overlap, 1 serialised, > 1 worse than
// serialised, < 0 faster than ideal (imprecise references). nullopt if min(refs) <= 0.
std::optional<double> r_overhead(const OverlapTimes& t);
// (t_call + t_wait) / t_comm_ref: time spent inside MPI relative to the bare collective.
std::optional<double> r_comm(const OverlapTimes& t);
// t_comp / t_comp_ref: how much the communication slowed the computation.
std::optional<double> r_comp_slowdown(const OverlapTimes& t);
// Share of the communication that progressed during the computation, normalised by what
// could have progressed: (t_comm_ref - t_call - t_wait) / min(t_comm_ref, t_comp_ref).
// 1: all it could, 0: nothing (everything happened inside MPI calls). Unlike r_comm it
// does not read "no overlap" when the computation is simply shorter than the collective.
std::optional<double> progressed_fraction(const OverlapTimes& t);

// Per-rank local durations of the same iterations, reduced the way each benchmark does.
struct RankDurations {
  double overall = 0;    // t4 - t1 on this rank, overlap run
  double compute = 0;    // t3 - t2 on this rank, overlap run
  double pure_comm = 0;  // NBC + Wait alone on this rank
  double cpu_ref = 0;    // computation alone on this rank
};
// OSU micro-benchmarks: max(0, 100 - 100 (overall - compute) / pure), each term the mean
// over ranks. nullopt if there are no ranks or the mean pure time is not positive.
std::optional<double> osu_overlap_pct(const std::vector<RankDurations>& ranks);
// IMB-NBC: 100 clamp((t_pure + t_CPU - t_ovrl) / min(t_pure, t_CPU), 0, 1), each term the
// maximum over ranks.
std::optional<double> imb_overlap_pct(const std::vector<RankDurations>& ranks);

enum class Diagnosis {
  overlap,                     // r_overhead near 0
  partial_overlap,             // communication progressed, computation unhurt, overhead left
  no_progression,              // sec. 3.3.1: nothing moved during the computation
  computation_slowdown,        // sec. 3.3.2: it moved, but the computation paid for it
  contention_without_overlap,  // sec. 3.3.3: no progress and a slower computation
  invalid,
};

struct DiagnosisThresholds {
  double tolerance = 0.15;  // ratios within this of their ideal count as ideal (noise)
  double progressed = 0.5;  // progressed_fraction above which communication "progressed"
};

Diagnosis diagnose(const OverlapTimes& t, const DiagnosisThresholds& thresholds = {});
std::string_view to_string(Diagnosis d);
// One sentence for a user, naming the numbers that led to the diagnosis' category.
std::string_view explain(Diagnosis d);

}  // namespace overlap::measure
