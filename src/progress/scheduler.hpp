// Drives every task graph in flight, and any request another layer hands over. progress()
// is the whole contract (as in UCX): one pass over all of them, returning how much work it
// did. Any thread may call it; one thread at a time does the pass and the others return 0
// at once, so a thread waiting on one collective helps all of them (collaborative
// progress) and nobody blocks on a lock while MPI may hold its own.
//
// A pass: start what can start in every graph (in submission order), then one test of
// every posted operation of every graph and every watched request (one MPI_Testsome),
// then start what those completions made ready.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <stop_token>
#include <vector>

#include "progress/doorbell.hpp"
#include "progress/step_pacing.hpp"
#include "progress/task_graph.hpp"

namespace overlap::progress {

class Scheduler {
 public:
  Scheduler() = default;
  Scheduler(const Scheduler&) = delete;
  Scheduler& operator=(const Scheduler&) = delete;

  // Takes shared ownership until the graph completes. Thread-safe.
  void submit(std::shared_ptr<TaskGraph> graph);
  // Tests `slot` (posted by someone else, e.g. a request the application's thread posted
  // itself to keep MPI's matching order) in every pass, together with the graphs'
  // operations, and calls `done` with its status once it finished; `done` runs inside a
  // pass (it may submit or watch more). Thread-safe.
  using WatchDone = std::function<void(const RequestStatus&)>;
  void watch(RequestTester& tester, RequestSlot slot, WatchDone done);

  // Holds (OVX_Progress_begin/_end): while one is held, passes go on as if work were in
  // flight and each also calls `tester.poke()`, driving the transport's own progress for
  // operations the application posted and completes itself; the scheduler never sees or
  // touches those. Counted, thread-safe. release_hold() returns false when none is held
  // (also after abandon_all, which drops them).
  void hold(RequestTester& tester);
  bool release_hold();
  int holds() const { return holds_.load(std::memory_order_acquire); }

  // One pass. Returns 0 when another thread is doing the pass, or when called again from
  // inside a pass (MPI progress hooks can re-enter through MPI_Test).
  int progress();
  // One pass from inside the application's own MPI call, right before MPI's function runs
  // (overlap-run's passes under `caller`): as progress(), but a hold gets no probe, since
  // that call progresses MPI as it would without the hold.
  int progress_in_call();
  // Calls of progress() from threads that are not a progress thread (MPI_Wait/Test on a
  // collective, MPI's progress hook), whether or not they got the pass. While they keep
  // coming the application's own MPI calls are progressing everything, and a `shared`
  // thread stays out of MPI (docs/liboverlap.md, "Standing down").
  std::uint64_t application_calls() const {
    return application_calls_.load(std::memory_order_acquire);
  }
  // TaskGraph::settle_sends for the thread that built `graph`, before it is submitted,
  // counted as a pass: MPI's progress hook, entered through the test, starts no pass
  // meanwhile, so the settle costs the caller at most the one progress round.
  static int settle(TaskGraph& graph);
  // Marks the calling thread as a progress thread: its progress() calls are not the
  // application's.
  static void mark_progress_thread();
  // Graphs and watched requests submitted and not yet complete, plus holds.
  std::size_t in_flight() const { return in_flight_.load(std::memory_order_acquire); }
  // Passes done so far, by any thread (a waiter can tell whether someone else just did
  // one).
  std::uint64_t passes() const { return passes_.load(std::memory_order_acquire); }

  // For progress threads: blocks until something is in flight or `stop` is requested.
  // Returns false on stop. A submit() racing with the call is never missed.
  bool wait_for_work(std::stop_token stop);
  // Graphs and watches submitted so far (a progress thread notes it before a pass).
  std::uint64_t submissions() const { return submissions_.load(std::memory_order_acquire); }
  // For progress threads between passes, the one way they pause: sleeps for `d` on the
  // doorbell unless `stop` is requested, the scheduler is hurried (hurry() also rings) or,
  // with `seen`, a submission beyond the `seen`-th arrives first (wake on submit: a new
  // collective need not wait out a pause). Submissions ring the doorbell once
  // ring_on_submit(true) was called (a shared thread with wake on submit does; otherwise
  // they leave its pauses alone: the pacing is the point).
  enum class Woken { timeout, submitted, stopped };
  void ring_on_submit(bool on) { ring_on_submit_.store(on, std::memory_order_release); }
  Woken sleep_unless_submitted(const std::stop_token& stop, std::chrono::microseconds d,
                               std::optional<std::uint64_t> seen);

  // The link the cost model describes (collectives/ sets it when the parameters are
  // agreed); until then, or when unknown, no step has an expected time.
  void set_link_model(LinkModel m) {
    link_latency_s_.store(m.latency_s, std::memory_order_release);
    link_bytes_per_s_.store(m.bytes_per_s, std::memory_order_release);
  }
  LinkModel link_model() const {
    return {link_latency_s_.load(std::memory_order_acquire),
            link_bytes_per_s_.load(std::memory_order_acquire)};
  }
  // Whether passes note the outlook below: only while a `shared` thread paces its pauses
  // by it, so other policies' passes pay nothing for it.
  void pace_steps(bool on) { pace_steps_.store(on, std::memory_order_release); }
  // The graphs' running sends and receives still within their expected time, as of the
  // last pass (by any thread). For the `shared` thread's pauses (step_pacing.hpp); the
  // three values are read one by one and may mix two passes, which only shifts a pause.
  StepOutlook outlook() const {
    StepOutlook o;
    o.next_due_ns = next_due_ns_.load(std::memory_order_acquire);
    o.shortest_step_ns = shortest_step_ns_.load(std::memory_order_acquire);
    o.last_due_ns = last_due_ns_.load(std::memory_order_acquire);
    return o;
  }

  // Urgency: a thread is blocked until something this scheduler completes is done, and
  // cannot make passes itself (the interception layer's fault handler, docs/overlap-run.md).
  // While one is, a `shared` progress thread passes without pausing, as the blocking MPI
  // call it stands in for would poll; hurry() also cuts a pause short. Counted;
  // async-signal-safe (an atomic and the doorbell).
  void hurry() noexcept {
    urgent_.fetch_add(1, std::memory_order_acq_rel);
    doorbell_.ring();
  }
  void unhurry() noexcept { urgent_.fetch_sub(1, std::memory_order_acq_rel); }
  bool hurried() const { return urgent_.load(std::memory_order_acquire) > 0; }

  // Shutdown of an erroneous program (work still in flight at MPI_Finalize): abandons
  // every graph, then runs passes until nothing they posted is left running, or `grace`
  // passed. Graphs still running then are kept for good, never freed, since MPI may
  // still read or write their memory. Watched requests are dropped (their owner's).
  struct AbandonReport {
    std::size_t abandoned = 0;  // graphs that were in flight
    std::size_t stuck = 0;      // of which still had operations running at the end
  };
  AbandonReport abandon_all(std::chrono::milliseconds grace);

 private:
  struct Watch {
    RequestTester* tester;
    RequestSlot slot;
    WatchDone done;
    bool finished = false;
  };
  // One posted operation in this pass's test: a graph's task or a watched request.
  struct Entry {
    RequestTester* tester;
    TaskGraph* graph;   // null for a watch
    std::size_t index;  // task id, or index in watches_
  };

  int run_pass();              // pass_ held
  void announce_submission();  // after a submission, inbox_mu_ released
  void take_inbox();
  int test_all();
  int test_group(std::size_t begin, std::size_t end);
  void drop_finished();
  void note_outlook();

  std::mutex pass_;                                 // held for a pass; only ever try-locked
  std::vector<std::shared_ptr<TaskGraph>> active_;  // guarded by pass_, submission order
  std::vector<Watch> watches_;                      // guarded by pass_
  std::vector<std::shared_ptr<TaskGraph>> stuck_;   // abandoned graphs MPI may still use
  // Scratch of test_all, kept to avoid allocations in every pass (guarded by pass_).
  std::vector<Entry> entries_;
  std::vector<RequestSlot> slots_;
  std::vector<RequestStatus> statuses_;
  std::vector<std::size_t> done_;

  std::mutex inbox_mu_;
  std::condition_variable_any work_cv_;
  std::vector<std::shared_ptr<TaskGraph>> inbox_;  // guarded by inbox_mu_
  std::vector<Watch> watch_inbox_;                 // guarded by inbox_mu_
  std::atomic<std::size_t> in_flight_{0};
  std::atomic<std::uint64_t> passes_{0};
  std::atomic<std::uint64_t> application_calls_{0};
  std::atomic<std::uint64_t> submissions_{0};  // written under inbox_mu_
  std::atomic<int> holds_{0};                  // written under inbox_mu_
  std::atomic<RequestTester*> hold_tester_{nullptr};
  std::atomic<int> urgent_{0};
  std::atomic<bool> ring_on_submit_{false};
  std::atomic<double> link_latency_s_{0}, link_bytes_per_s_{0};
  std::atomic<bool> pace_steps_{false};
  std::atomic<std::int64_t> next_due_ns_{kNoTime}, shortest_step_ns_{kNoTime},
      last_due_ns_{kNoTime};  // written under pass_
  Doorbell doorbell_;         // what progress threads pause on (sleep_unless_submitted)
};

}  // namespace overlap::progress
