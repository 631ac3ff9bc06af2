#include "measure/diagnosis.hpp"

#include <gtest/gtest.h>

#include "measure/overlap_metrics.hpp"

namespace overlap::measure {
namespace {

// t_comm_ref, t_comp_ref, t_measured, t_call, t_comp, t_wait
Diagnosis of(double comm, double comp, double measured, double call, double c, double wait) {
  return diagnose(overlap_ratios({comm, comp, measured, call, c, wait}));
}

TEST(Diagnosis, TheSection33Cases) {
  // Overlap: measured = max(refs), nothing left in Wait, computation unhurt.
  EXPECT_EQ(of(10, 10, 10.5, 0.1, 10.2, 0.2), Diagnosis::overlap);
  // No progression (3.3.1): the whole collective in Wait, computation unhurt.
  EXPECT_EQ(of(10, 10, 20, 0.1, 10, 9.9), Diagnosis::no_progression);
  // Computation slowdown (3.3.2): Wait is empty, but the computation took 1.8x.
  EXPECT_EQ(of(10, 10, 18, 0.1, 18, 0.1), Diagnosis::computation_slowdown);
  // Contention without overlap (3.3.3): both slower.
  EXPECT_EQ(of(10, 10, 26, 0.5, 13, 12), Diagnosis::contention_without_overlap);
  // Partial: half the collective hidden, computation unhurt, better than serialised.
  EXPECT_EQ(of(10, 10, 15, 0.1, 10, 4.9), Diagnosis::partial_overlap);
}

TEST(Diagnosis, WorseThanSerialisedIsNeverPartialOverlap) {
  // MPI calls short (progressed 0.95), computation unhurt, yet 1.1 times serialised: the
  // time went to a slower collective, not to overlap. (ab6b786 said partial_overlap.)
  EXPECT_EQ(of(10, 10, 21, 0.1, 10, 0.4), Diagnosis::communication_slowdown);
}

TEST(Diagnosis, ComputationSlowdownIsJudgedAgainstTheCommunicationItHid) {
  // A 64 ms computation 10 % slower under a 4 ms collective: r_comp_slowdown 1.10 is within
  // the noise as a fraction of t_comp, but the 6.4 ms lost are 1.6 times what overlap could
  // save. (ab6b786 said partial_overlap.)
  EXPECT_EQ(of(0.004, 0.064, 0.0706, 0.0001, 0.0704, 0.0001), Diagnosis::computation_slowdown);
  // The same relative slowdown of a short computation under a long collective costs little
  // and is noise: overlap.
  EXPECT_EQ(of(0.064, 0.004, 0.0642, 0.0001, 0.0044, 0.0001), Diagnosis::overlap);
}

TEST(Diagnosis, TheCollectiveGotSlowerIsItsOwnDiagnosis) {
  // r_comm 1.5 with the computation unhurt: the paper's Open MPI Ireduce case (sec. 6.1).
  // (ab6b786 said no_progression.)
  EXPECT_EQ(of(10, 10, 25, 0.1, 10, 14.9), Diagnosis::communication_slowdown);
}

TEST(Diagnosis, ClearlyNegativeOverheadIsAnImpreciseReference) {
  // 20 % faster than perfect overlap. (ab6b786 said overlap.)
  EXPECT_EQ(of(10, 10, 8, 0.1, 7.8, 0.1), Diagnosis::imprecise_reference);
  // Within the noise below 0 is still overlap.
  EXPECT_EQ(of(10, 10, 9, 0.1, 8.8, 0.1), Diagnosis::overlap);
}

TEST(Diagnosis, ShortComputationIsNotMistakenForNoProgression) {
  // 16 ms collective, 2 ms computation, perfectly overlapped: r_comm is 0.875, but the
  // 2 ms that could be hidden were, so this is overlap, not "no progression".
  EXPECT_EQ(of(0.016, 0.002, 0.016, 0.0001, 0.002, 0.0139), Diagnosis::overlap);
}

TEST(Diagnosis, NamesParseBackAndUnknownNamesDoNot) {
  for (Diagnosis d : kDiagnosisNames.values()) {
    EXPECT_EQ(kDiagnosisNames.parse(to_string(d)), d);
    EXPECT_FALSE(explain(d).empty());
  }
  EXPECT_EQ(kDiagnosisNames.values().size(), 8u);
  EXPECT_FALSE(kDiagnosisNames.parse("Overlap"));
  EXPECT_FALSE(kDiagnosisNames.parse(""));
  EXPECT_EQ(to_string(Diagnosis::contention_without_overlap), "contention_without_overlap");
}

}  // namespace
}  // namespace overlap::measure
