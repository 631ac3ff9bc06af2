// Why a point did or did not overlap (nbc-overlap paper, sec. 3.3), from its ratios. The
// rules and the reasons for each threshold are in docs/nbc-benchmark.md ("Diagnosis").
#pragma once

#include <optional>
#include <string_view>

#include "base/enum_names.hpp"

namespace overlap::measure {

enum class Diagnosis {
  overlap,                     // r_overhead within the tolerance of 0
  partial_overlap,             // communication progressed, computation unhurt, r_overhead <= 1
  no_progression,              // sec. 3.3.1: the collective ran inside MPI calls
  computation_slowdown,        // sec. 3.3.2: it progressed, the computation paid for it
  communication_slowdown,      // the collective got slower, the computation is unhurt
  contention_without_overlap,  // sec. 3.3.3: no progress and a slower computation
  imprecise_reference,         // a reference off target or too noisy, or r_overhead below 0
  invalid,                     // a calibration failed or no iteration could be kept
};

inline constexpr EnumNames<Diagnosis, 8> kDiagnosisNames{
    "diagnosis",
    {{{Diagnosis::overlap, "overlap"},
      {Diagnosis::partial_overlap, "partial_overlap"},
      {Diagnosis::no_progression, "no_progression"},
      {Diagnosis::computation_slowdown, "computation_slowdown"},
      {Diagnosis::communication_slowdown, "communication_slowdown"},
      {Diagnosis::contention_without_overlap, "contention_without_overlap"},
      {Diagnosis::imprecise_reference, "imprecise_reference"},
      {Diagnosis::invalid, "invalid"}}}};

inline std::string_view to_string(Diagnosis d) { return kDiagnosisNames.name(d); }

// The ratios a diagnosis looks at (medians over iterations), see overlap_metrics.hpp.
struct OverlapRatios {
  double r_overhead = 0;
  double r_comm = 0;
  double r_comp_slowdown = 0;
  double progressed = 0;  // progressed_fraction
  double r_comp_loss = 0;
};

struct DiagnosisThresholds {
  double tolerance = 0.15;  // ratios within this of their ideal count as ideal (noise)
  double progressed = 0.5;  // progressed fraction from which communication "progressed"
  // A reference time whose p25-p75 spread is wider than this fraction of its median is too
  // noisy to divide by (reference_check.hpp): twice the ratios' tolerance, so a point is
  // flagged only where the quartiles alone move a ratio by more than the noise allows.
  double reference_spread = 0.3;
};

Diagnosis diagnose(const std::optional<OverlapRatios>& ratios,
                   const DiagnosisThresholds& thresholds = {});

// One sentence for a user: what the diagnosis means and what to try.
std::string_view explain(Diagnosis d);

}  // namespace overlap::measure
