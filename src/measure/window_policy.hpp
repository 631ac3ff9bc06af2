// What `overlap-bench coll` does after each batch of windows (collective-benchmarking paper,
// sec. 4; docs/collective-benchmarks.md). A window whose collective ran past its end is an
// overrun; discarding overruns while keeping the rest truncates the distribution's slow
// tail and biases the median low, the more the more windows overrun (up to a quarter before
// issue 24). So an overrun, or more than a quarter of a batch lost, widens the window and
// starts the sample again: the windows kept are all of one length, long enough for every
// collective of their batch. A fixed window (--window) cannot widen: its overruns stay
// discarded and counted. Pure, so the rule is tested on simulated batches.
#pragma once

namespace overlap::measure {

struct WindowBatchOutcome {
  int windows = 0;  // run in the batch
  int late = 0;     // a rank started after the window opened
  int overrun = 0;  // the collective ended after the window closed
};

struct WindowStep {
  bool restart = false;  // drop every window kept so far and run the sample again...
  double window = 0;     // ...with this window (the same when not restarting)
};

// `fixed`: the user fixed the window. `last`: no batch may follow (the budget is spent), so
// this batch is kept whatever it lost.
WindowStep next_window_step(const WindowBatchOutcome& batch, double window, bool fixed, bool last);

// A point's windows as its batches come, so that windows tried = kept + late + overrun +
// restarted however the batches and restarts fall. The sample being kept carries its own
// discards (kept_late, kept_overrun), which a restart moves to late and overrun.
struct WindowTally {
  int windows = 0;    // tried, all batches
  int late = 0;       // discarded in batches a restart dropped
  int overrun = 0;    // likewise
  int restarted = 0;  // on time and within their window, dropped by a restart
  int kept = 0, kept_late = 0, kept_overrun = 0;  // the sample kept so far

  // A batch of b.windows, `on_time` of them kept unless `restart` drops the sample.
  void add(const WindowBatchOutcome& b, int on_time, bool restart);
};

}  // namespace overlap::measure
