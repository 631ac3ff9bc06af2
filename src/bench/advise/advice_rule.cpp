#include "bench/advise/advice_rule.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "base/duration.hpp"

namespace overlap::bench {
namespace {

bool counts(const AdvisePoint& p) {
  return p.setup < AdviseSetup::advice && p.status == AdviseStatus::measured && p.t_iter;
}

const AdvisePoint* find(const std::vector<AdvisePoint>& points, AdviseSetup setup) {
  for (const AdvisePoint& p : points) {
    if (p.setup == setup) return &p;
  }
  return nullptr;
}

std::string name(AdviseSetup s) { return std::string(kAdviseSetupNames.name(s)); }

// The fastest other set-up whose p25-p75 range overlaps the chosen one's: the measurement
// cannot tell them apart. Null when none does.
const AdvisePoint* overlapping_runner_up(const std::vector<const AdvisePoint*>& measured,
                                         const AdvisePoint& chosen) {
  const AdvisePoint* r = nullptr;
  for (const AdvisePoint* p : measured) {
    if (p == &chosen) continue;
    if (r == nullptr || p->t_iter->median < r->t_iter->median) r = p;
  }
  if (r == nullptr) return nullptr;
  const bool overlap = r->t_iter->p25 <= chosen.t_iter->p75 && chosen.t_iter->p25 <= r->t_iter->p75;
  return overlap ? r : nullptr;
}

// "imprecise: ..." when a measured set-up's loop blocks varied beyond
// kLoopSpreadTolerance (its time per iteration, which the advice compares, is uncertain).
std::string loop_imprecise(const std::vector<const AdvisePoint*>& measured) {
  std::string list;
  for (const AdvisePoint* p : measured) {
    if (loop_note(*p).empty()) continue;
    list += (list.empty() ? "" : ", ") + name(p->setup);
  }
  if (list.empty()) return "";
  return "imprecise: the loop of " + list + " varied (its note says how much); repeat the run";
}

// The computation alone of each measured all-core set-up (in its nbc point): when the
// medians differ beyond kSpeedTolerance the machine's speed changed during the run. With the
// loops interleaved the comparison holds (the evidence columns, measured one set-up after
// another, and the times may not be the program's); with them measured apart (a cell
// finished by --resume) it is imprecise. Empty when they agree.
std::string speed_change(const std::vector<const AdvisePoint*>& measured, bool interleaved) {
  const AdvisePoint* lo = nullptr;
  const AdvisePoint* hi = nullptr;
  for (const AdvisePoint* p : measured) {
    if (p->free_cores != 0 || !p->nbc || !p->nbc->t_comp_ref) continue;
    const double t = p->nbc->t_comp_ref->median;
    if (lo == nullptr || t < lo->nbc->t_comp_ref->median) lo = p;
    if (hi == nullptr || t > hi->nbc->t_comp_ref->median) hi = p;
  }
  if (lo == nullptr ||
      hi->nbc->t_comp_ref->median <= lo->nbc->t_comp_ref->median * (1 + kSpeedTolerance))
    return "";
  const std::string took =
      fmt::format("the same computation alone took {} ({}) to {} ({}) in their nbc points",
                  format_duration(lo->nbc->t_comp_ref->median), name(lo->setup),
                  format_duration(hi->nbc->t_comp_ref->median), name(hi->setup));
  if (!interleaved) {
    return "imprecise: " + took +
           ", and the set-ups' loops ran in two runs (--resume), not interleaved; repeat the run";
  }
  return "the machine's speed changed during the run: " + took +
         "; the loops were interleaved, so the comparison holds, but r_ovh and r_slow were "
         "measured at different speeds";
}

}  // namespace

std::string loop_note(const AdvisePoint& p) {
  if (p.t_iter && p.t_iter->p25 > 0 && p.t_iter->p75 > p.t_iter->p25 * (1 + kLoopSpreadTolerance)) {
    return fmt::format(
        "imprecise: its loop's blocks took {}-{} per iteration (p25-p75): its time "
        "is uncertain",
        format_duration(p.t_iter->p25), format_duration(p.t_iter->p75));
  }
  return "";
}

std::string evidence_note(const AdvisePoint& p) {
  if (p.nbc && p.nbc->t_comp_ref) {
    const measure::Spread& t = *p.nbc->t_comp_ref;
    if (t.p25 > 0 && t.p75 > t.p25 * (1 + kSpreadTolerance)) {
      return fmt::format(
          "r_ovh and r_slow uncertain: the computation alone took {}-{} (p25-p75) during its "
          "nbc point (the machine's speed, or a thread beside it, varied)",
          format_duration(t.p25), format_duration(t.p75));
    }
  }
  return "";
}

AdvisePoint advise(const std::vector<AdvisePoint>& points, double margin, bool interleaved) {
  AdvisePoint a;
  a.setup = AdviseSetup::advice;
  std::vector<const AdvisePoint*> measured;
  for (const AdvisePoint& p : points) {
    if (counts(p)) measured.push_back(&p);
  }
  if (measured.empty()) {
    a.status = AdviseStatus::invalid;
    a.reason = "no set-up was measured";
    return a;
  }
  double best = measured.front()->t_iter->median;
  for (const AdvisePoint* p : measured) best = std::min(best, p->t_iter->median);
  // Simplest first: the enum's order.
  std::sort(measured.begin(), measured.end(),
            [](const AdvisePoint* x, const AdvisePoint* y) { return x->setup < y->setup; });
  const AdvisePoint* chosen = nullptr;
  for (const AdvisePoint* p : measured) {
    if (p->t_iter->median <= best * (1 + margin)) {
      chosen = p;
      break;
    }
  }
  a.status = AdviseStatus::measured;
  a.recommended = chosen->setup;
  a.predicted_s = chosen->t_iter->median;
  a.how = chosen->how;
  a.threads = chosen->threads;
  a.free_cores = chosen->free_cores;
  a.progress = chosen->progress;
  a.msg_bytes = chosen->msg_bytes;  // every set-up of a cell moves the same message
  for (AdviseSetup b : {AdviseSetup::mpi, AdviseSetup::mpi_async}) {
    const AdvisePoint* p = find(points, b);
    if (p != nullptr && counts(*p)) {
      a.baseline = b;
      a.baseline_s = p->t_iter->median;
      a.speedup = *a.baseline_s / *a.predicted_s;
      break;
    }
  }
  if (!a.baseline) {
    a.null_reasons["baseline_s"] = "MPI's own set-up was not measured";
    a.null_reasons["speedup"] = "MPI's own set-up was not measured";
  }
  std::vector<std::string> notes;
  if (std::string loop = loop_imprecise(measured); !loop.empty()) notes.push_back(loop);
  if (chosen->t_iter->median > best) {
    notes.push_back(fmt::format("within {:.0f} % of the fastest ({}), and simpler", margin * 100,
                                format_duration(best)));
  }
  if (const AdvisePoint* r = overlapping_runner_up(measured, *chosen)) {
    notes.push_back(
        fmt::format("{} ({}, p25-p75 {}-{}) is within the measured spread of it ({}-{}): a repeat "
                    "may advise it",
                    name(r->setup), format_duration(r->t_iter->median),
                    format_duration(r->t_iter->p25), format_duration(r->t_iter->p75),
                    format_duration(chosen->t_iter->p25), format_duration(chosen->t_iter->p75)));
  }
  if (std::string speed = speed_change(measured, interleaved); !speed.empty()) {
    notes.insert(speed.rfind("imprecise: ", 0) == 0 ? notes.begin() : notes.end(), speed);
  }
  for (const std::string& n : notes) a.reason += (a.reason.empty() ? "" : "; ") + n;
  return a;
}

std::string how_to_get(AdviseSetup setup, bool mpich, int threads, bool p2p) {
  const std::string fewer = fmt::format("OMP_NUM_THREADS={} ", std::max(1, threads - 1));
  switch (setup) {
    case AdviseSetup::mpi:
      return "nothing to change: MPI's own nonblocking calls";
    case AdviseSetup::mpi_async:
      return mpich ? "MPICH_ASYNC_PROGRESS=1 in the environment (the program must ask for "
                     "MPI_THREAD_MULTIPLE)"
                   : "OMPI_MCA_btl_tcp_progress_thread=1 in the environment (TCP transport)";
    case AdviseSetup::caller:
      // overlap-run drives MPI while the program's own requests are outstanding, under
      // every policy; its own collectives it leaves to MPI under caller.
      if (p2p) {
        return "overlap-run --progress caller -- PROGRAM (a program calling liboverlap: "
               "OVX_Progress_begin/_end around its exchange, OVERLAP_PROGRESS=caller)";
      }
      return "liboverlap's collectives in the program (OVX_Iallreduce, ...: "
             "docs/liboverlap.md) with OVERLAP_PROGRESS=caller; overlap-run --progress "
             "caller leaves a program's own collectives to MPI";
    case AdviseSetup::shared:
      return "overlap-run --progress shared -- PROGRAM (a program calling liboverlap: " +
             std::string(p2p ? "OVX_Progress_begin/_end around its exchange, " : "") +
             "OVERLAP_PROGRESS=shared)";
    case AdviseSetup::dedicated:
      return threads > 1
                 ? fmt::format(
                       "OMP_NUM_THREADS={} OMP_PLACES=cores OMP_PROC_BIND=close overlap-run "
                       "--progress dedicated -- PROGRAM: its threads bound one per core, the "
                       "progress thread sharing the last (without the binding, overlap-run "
                       "keeps the program's threads off that core)",
                       threads)
                 : "overlap-run --progress dedicated -- PROGRAM (the progress thread shares "
                   "the rank's one core)";
    case AdviseSetup::shared_core:
      return fewer + "overlap-run --progress shared -- PROGRAM (one core per rank left free)";
    case AdviseSetup::dedicated_core:
      return fewer +
             "overlap-run --progress dedicated -- PROGRAM (its thread takes the "
             "core left free)";
    case AdviseSetup::advice:
    case AdviseSetup::overall:
      break;
  }
  return "";
}

namespace {

std::string bytes_label(long b) {
  static const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  double v = static_cast<double>(b);
  int u = 0;
  while (v >= 1024 && u < 4) v /= 1024, ++u;
  return fmt::format("{:g} {}", std::round(v * 100) / 100, units[u]);
}

// The cells, in the order of their first point.
std::vector<std::vector<const AdvisePoint*>> by_cell(const std::vector<AdvisePoint>& points) {
  std::vector<std::vector<const AdvisePoint*>> cells;
  for (const AdvisePoint& p : points) {
    if (p.setup == AdviseSetup::overall) continue;
    auto it = std::find_if(cells.begin(), cells.end(),
                           [&](const auto& c) { return c.front()->same_cell(p); });
    if (it == cells.end())
      cells.push_back({&p});
    else
      it->push_back(&p);
  }
  return cells;
}

// One cell's advice in one line ("advice: shared — ..." after `prefix`), or its failure.
std::string advice_line(const AdvisePoint& a, const std::string& prefix) {
  if (a.status != AdviseStatus::measured || !a.recommended)
    return prefix + "no advice: " + a.reason;
  std::string line = fmt::format("{}advice: {} — {} per iteration", prefix, name(*a.recommended),
                                 format_duration(*a.predicted_s));
  if (a.baseline_s && a.speedup) {
    line += fmt::format(", against {} today ({}): {:.2f}x", format_duration(*a.baseline_s),
                        name(*a.baseline), *a.speedup);
  }
  if (a.reason.rfind("imprecise: ", 0) == 0) line += " (imprecise: see its note)";
  return line;
}

}  // namespace

std::string cell_label(const AdvisePoint& cell) {
  std::string message = cell.cell_bytes    ? bytes_label(*cell.cell_bytes)
                        : cell.cell_comm_s ? "MPI's own " + format_duration(*cell.cell_comm_s)
                                           : "no message";
  if (!cell.cell_comp_s) return "every cell";
  return message + ", " + format_duration(*cell.cell_comp_s);
}

OverallAdvice overall_advice(const std::vector<AdvisePoint>& points, double margin) {
  OverallAdvice o;
  struct Candidate {
    AdviseSetup setup;
    double worst = 0;
    int cells = 0, within = 0;
    std::string how;
  };
  std::map<AdviseSetup, Candidate> candidates;
  for (const auto& cell : by_cell(points)) {
    double best = 0;
    bool any = false;
    for (const AdvisePoint* p : cell) {
      if (!counts(*p)) continue;
      best = any ? std::min(best, p->t_iter->median) : p->t_iter->median;
      any = true;
    }
    if (!any) continue;
    ++o.cells;
    for (const AdvisePoint* p : cell) {
      if (!counts(*p)) continue;
      Candidate& c =
          candidates.try_emplace(p->setup, Candidate{p->setup, 0, 0, 0, ""}).first->second;
      const double loss = p->t_iter->median / best - 1;
      c.worst = c.cells == 0 ? loss : std::max(c.worst, loss);
      ++c.cells;
      if (loss <= margin) ++c.within;
      if (c.how.empty()) c.how = p->how;
    }
  }
  std::optional<double> least;
  for (const auto& [s, c] : candidates) {
    if (c.cells == o.cells) least = least ? std::min(*least, c.worst) : c.worst;
  }
  if (!least) return o;
  for (const auto& [s, c] : candidates) {  // the map's order: simplest first
    if (c.cells != o.cells || c.worst > *least + margin) continue;
    o.setup = s;
    o.worst_loss = c.worst;
    o.within = c.within;
    o.how = c.how;
    break;
  }
  return o;
}

AdvisePoint overall_point(const std::vector<AdvisePoint>& points, double margin) {
  AdvisePoint a;
  a.setup = AdviseSetup::overall;
  const OverallAdvice o = overall_advice(points, margin);
  a.cells = o.cells;
  if (!o.setup) {
    a.status = AdviseStatus::invalid;
    a.reason = o.cells == 0 ? "no set-up was measured"
                            : "no set-up was measured in every cell that has a measurement";
    return a;
  }
  a.status = AdviseStatus::measured;
  a.recommended = o.setup;
  a.how = o.how;
  a.worst_loss = std::max(0.0, o.worst_loss);
  a.cells_within = o.within;
  for (const AdvisePoint& p : points) {
    if (p.setup != *o.setup || !counts(p)) continue;
    a.threads = p.threads;
    a.free_cores = p.free_cores;
    a.progress = p.progress;
    break;
  }
  a.reason = fmt::format(
      "at most {:.0f} % slower than a cell's fastest; within {:.0f} % of it "
      "in {} of {} cells",
      *a.worst_loss * 100, margin * 100, o.within, o.cells);
  // Built on the cells' times: a cell whose comparison was imprecise makes it so too.
  std::string flagged;
  for (const AdvisePoint& p : points) {
    if (p.setup == AdviseSetup::advice && p.reason.rfind("imprecise: ", 0) == 0)
      flagged += (flagged.empty() ? "" : ", ") + cell_label(p);
  }
  if (!flagged.empty()) {
    a.reason = "imprecise: built on cells flagged imprecise (" + flagged + "); repeat the run; " +
               a.reason;
  }
  return a;
}

std::vector<std::string> advice_summary(const std::vector<AdvisePoint>& points, double margin) {
  std::vector<const AdvisePoint*> advice;
  for (const AdvisePoint& p : points) {
    if (p.setup == AdviseSetup::advice) advice.push_back(&p);
  }
  if (advice.empty()) return {"# no advice: the run did not finish"};
  std::vector<std::string> lines;
  int missing = 0;
  for (const AdvisePoint& p : points) {
    if (p.status != AdviseStatus::measured && p.setup < AdviseSetup::advice) ++missing;
  }
  const std::string not_measured =
      fmt::format("#   {} set-up(s) not measured: their notes say why", missing);
  if (advice.size() == 1) {
    const AdvisePoint& a = *advice.front();
    lines.push_back(advice_line(a, "# "));
    if (a.status != AdviseStatus::measured || !a.recommended) return lines;
    if (!a.reason.empty()) lines.push_back("#   " + a.reason);
    lines.push_back("#   how: " + a.how);
    if (missing > 0) lines.push_back(not_measured);
    return lines;
  }
  lines.push_back(
      fmt::format("# advice per cell (message, computation), {} cells:", advice.size()));
  for (const AdvisePoint* a : advice)
    lines.push_back(advice_line(*a, "#   " + cell_label(*a) + ": "));
  const auto recorded = std::find_if(points.begin(), points.end(), [](const AdvisePoint& p) {
    return p.setup == AdviseSetup::overall;
  });
  const AdvisePoint o = recorded != points.end() ? *recorded : overall_point(points, margin);
  if (o.status != AdviseStatus::measured || !o.recommended) {
    lines.push_back("# no one set-up for every cell: " + o.reason);
  } else {
    lines.push_back(fmt::format("# for every cell: {} — {}", name(*o.recommended), o.reason));
    lines.push_back("#   how: " + o.how);
  }
  if (missing > 0) lines.push_back(not_measured);
  return lines;
}

}  // namespace overlap::bench
