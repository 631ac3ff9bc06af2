#include "measure/overlap_reduction.hpp"

#include <algorithm>
#include <stdexcept>

#include "measure/global_time.hpp"
#include "measure/overlap_metrics.hpp"
#include "measure/peer_overlap.hpp"

namespace overlap::measure {
namespace {

int pacing_rank(const std::vector<RankIteration>& ranks) {
  int best = 0;
  for (int r = 1; r < static_cast<int>(ranks.size()); ++r) {
    const auto own = [](const RankIteration& x) { return x.t_call + x.t_comp + x.t_wait; };
    if (own(ranks[static_cast<std::size_t>(r)]) > own(ranks[static_cast<std::size_t>(best)])) {
      best = r;
    }
  }
  return best;
}

IterationSample reduce_iteration(const std::vector<RankIteration>& ranks) {
  std::vector<double> cs, ce, t1, t4;
  double comp_ref = 0, comp_max = 0;
  for (const RankIteration& x : ranks) {
    cs.push_back(x.comm_start);
    ce.push_back(x.comm_end);
    t1.push_back(x.t1);
    t4.push_back(x.t4);
    comp_ref = std::max(comp_ref, x.comp_ref);
    comp_max = std::max(comp_max, x.t_comp);
  }
  const int p = pacing_rank(ranks);
  const RankIteration& pace = ranks[static_cast<std::size_t>(p)];
  return {collective_span(cs, ce),
          comp_ref,
          collective_span(t1, t4),
          pace.t_call,
          pace.t_comp,
          pace.t_wait,
          pace.t_test,
          p,
          comp_max};
}

template <typename F>
Spread spread_of(const std::vector<IterationSample>& samples, F field) {
  std::vector<double> v;
  for (const IterationSample& s : samples) v.push_back(field(s));
  return spread(v);
}

// Each rank's means over the kept iterations.
std::vector<RankMeans> rank_means(const std::vector<std::vector<RankIteration>>& its,
                                  const std::vector<bool>& keep) {
  const std::size_t ranks = its.front().size();
  std::vector<RankMeans> out;
  for (std::size_t r = 0; r < ranks; ++r) {
    std::vector<double> overall, call, compute, test, wait, pure, comp_ref;
    for (std::size_t i = 0; i < its.size(); ++i) {
      if (!keep[i]) continue;
      const RankIteration& x = its[i][r];
      overall.push_back(x.t_call + x.t_comp + x.t_wait);
      call.push_back(x.t_call);
      compute.push_back(x.t_comp);
      test.push_back(x.t_test);
      wait.push_back(x.t_wait);
      pure.push_back(x.comm_local);
      comp_ref.push_back(x.comp_ref);
    }
    out.push_back({mean(overall), mean(call), mean(compute), mean(test), mean(wait), mean(pure),
                   mean(comp_ref)});
  }
  return out;
}

void add_rank_means(OverlapPointStats& s, const std::vector<std::vector<RankIteration>>& its,
                    const std::vector<bool>& keep) {
  s.ranks = rank_means(its, keep);
  std::vector<PeerRankTimes> peers;
  double slowest = 0, fastest = 0;
  for (const RankMeans& m : s.ranks) {
    peers.push_back({m.overall, m.compute, m.pure, m.test});
    slowest = std::max(slowest, m.comp_ref);
    fastest = fastest == 0 ? m.comp_ref : std::min(fastest, m.comp_ref);
  }
  s.osu_on_nbc_times_pct = osu_overlap_pct(peers);
  s.imb_on_nbc_times_pct = imb_overlap_pct(peers);
  s.comp_speed_spread = fastest > 0 ? slowest / fastest : 1;
}

void add_ratios(OverlapPointStats& s, const DiagnosisThresholds& thresholds) {
  std::vector<double> overhead, comm, slowdown, progressed, loss;
  for (const IterationSample& x : s.samples) {
    const OverlapTimes t{
        s.t_comm_ref.median, s.t_comp_ref.median, x.t_measured, x.t_call, x.t_comp, x.t_wait};
    OverlapTimes slowest = t;
    slowest.t_comp = x.t_comp_max;
    const auto r = overlap_ratios(t);
    const auto rs = overlap_ratios(slowest);
    if (!r || !rs) {
      s.invalid_reason = "a reference time was not positive";
      return;
    }
    overhead.push_back(r->r_overhead);
    comm.push_back(r->r_comm);
    slowdown.push_back(rs->r_comp_slowdown);  // slowest rank against slowest rank
    progressed.push_back(r->progressed);
    loss.push_back(rs->r_comp_loss);
  }
  s.r_overhead = spread(overhead);
  s.r_comm = spread(comm);
  s.r_comp_slowdown = spread(slowdown);
  s.progressed = median(progressed);
  s.r_comp_loss = median(loss);
  s.ratio_diagnosis = diagnose(OverlapRatios{s.r_overhead.median, s.r_comm.median,
                                             s.r_comp_slowdown.median, s.progressed, s.r_comp_loss},
                               thresholds);
  s.diagnosis = s.ratio_diagnosis;
  s.valid = true;
}

}  // namespace

OverlapPointStats reduce_overlap(const std::vector<std::vector<RankIteration>>& iterations,
                                 const DiagnosisThresholds& thresholds,
                                 const std::optional<ReferenceTargets>& targets) {
  OverlapPointStats s;
  if (iterations.empty() || iterations.front().empty()) {
    s.invalid_reason = "no iteration was measured";
    return s;
  }
  std::vector<bool> keep;
  for (const auto& ranks : iterations) {
    if (ranks.size() != iterations.front().size()) {
      throw std::invalid_argument("reduce_overlap: every iteration needs the same ranks");
    }
    const bool late = std::any_of(ranks.begin(), ranks.end(), [](auto& x) { return x.late; });
    keep.push_back(!late);
    if (late) {
      ++s.discarded;
      continue;
    }
    s.samples.push_back(reduce_iteration(ranks));
  }
  s.kept = static_cast<int>(s.samples.size());
  if (s.kept == 0) {
    s.invalid_reason = "all " + std::to_string(s.discarded) +
                       " iterations were discarded: in each, a rank left a sync barrier late";
    return s;
  }
  s.t_comm_ref = spread_of(s.samples, [](auto& x) { return x.t_comm_ref; });
  s.t_comp_ref = spread_of(s.samples, [](auto& x) { return x.t_comp_ref; });
  s.t_measured = spread_of(s.samples, [](auto& x) { return x.t_measured; });
  s.t_call = spread_of(s.samples, [](auto& x) { return x.t_call; });
  s.t_comp = spread_of(s.samples, [](auto& x) { return x.t_comp; });
  s.t_comp_max = spread_of(s.samples, [](auto& x) { return x.t_comp_max; });
  s.t_wait = spread_of(s.samples, [](auto& x) { return x.t_wait; });
  s.t_in_mpi = spread_of(s.samples, [](auto& x) { return x.t_call + x.t_wait; });
  s.t_test = spread_of(s.samples, [](auto& x) { return x.t_test; });
  add_rank_means(s, iterations, keep);
  add_ratios(s, thresholds);
  if (s.valid && targets) {
    s.imprecise =
        reference_problems(*targets, s.t_comm_ref, s.t_comp_ref, s.r_overhead, thresholds);
    if (!s.imprecise.empty()) s.diagnosis = Diagnosis::imprecise_reference;
  }
  return s;
}

}  // namespace overlap::measure
