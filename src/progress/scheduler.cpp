#include "progress/scheduler.hpp"

#include <algorithm>
#include <thread>
#include <utility>

namespace overlap::progress {
namespace {
// Depth of progress passes on this thread (over all schedulers): a pass calls MPI_Testsome,
// which may call our MPI hook, which must not start a nested pass.
thread_local int pass_depth = 0;
thread_local bool progress_thread = false;
thread_local bool in_call_pass = false;  // the pass is progress_in_call()'s
}  // namespace

void Scheduler::mark_progress_thread() { progress_thread = true; }

int Scheduler::settle(TaskGraph& graph) {
  struct InPass {
    InPass() { ++pass_depth; }
    ~InPass() { --pass_depth; }
    InPass(const InPass&) = delete;
    InPass& operator=(const InPass&) = delete;
  } in_pass;
  return graph.settle_sends();
}

void Scheduler::submit(std::shared_ptr<TaskGraph> graph) {
  {
    std::lock_guard lock(inbox_mu_);
    inbox_.push_back(std::move(graph));
    in_flight_.fetch_add(1, std::memory_order_acq_rel);
    submissions_.fetch_add(1, std::memory_order_acq_rel);
  }
  announce_submission();
}

void Scheduler::announce_submission() {
  work_cv_.notify_all();  // an idle thread (wait_for_work)
  if (ring_on_submit_.load(std::memory_order_acquire)) doorbell_.ring();  // a pausing one
}

void Scheduler::watch(RequestTester& tester, RequestSlot slot, WatchDone done) {
  {
    std::lock_guard lock(inbox_mu_);
    watch_inbox_.push_back(Watch{&tester, slot, std::move(done)});
    in_flight_.fetch_add(1, std::memory_order_acq_rel);
    submissions_.fetch_add(1, std::memory_order_acq_rel);
  }
  announce_submission();
}

void Scheduler::hold(RequestTester& tester) {
  {
    std::lock_guard lock(inbox_mu_);
    hold_tester_.store(&tester, std::memory_order_release);
    holds_.fetch_add(1, std::memory_order_acq_rel);
    in_flight_.fetch_add(1, std::memory_order_acq_rel);
    submissions_.fetch_add(1, std::memory_order_acq_rel);  // wakes a pausing thread too
  }
  announce_submission();
}

bool Scheduler::release_hold() {
  std::lock_guard lock(inbox_mu_);
  if (holds_.load() == 0) return false;
  holds_.fetch_sub(1, std::memory_order_acq_rel);
  in_flight_.fetch_sub(1, std::memory_order_acq_rel);
  return true;
}

int Scheduler::progress() {
  if (pass_depth > 0) return 0;
  if (!progress_thread) application_calls_.fetch_add(1, std::memory_order_acq_rel);
  std::unique_lock pass(pass_, std::try_to_lock);
  if (!pass.owns_lock()) return 0;
  return run_pass();
}

int Scheduler::progress_in_call() {
  in_call_pass = true;
  const int work = progress();
  in_call_pass = false;
  return work;
}

void Scheduler::take_inbox() {
  std::lock_guard lock(inbox_mu_);
  for (auto& g : inbox_) active_.push_back(std::move(g));
  inbox_.clear();
  for (auto& w : watch_inbox_) watches_.push_back(std::move(w));
  watch_inbox_.clear();
}

int Scheduler::run_pass() {
  ++pass_depth;
  passes_.fetch_add(1, std::memory_order_acq_rel);
  take_inbox();
  int work = 0;
  // Index loops: a completion callback may submit (into the inbox), never into active_.
  for (std::size_t i = 0; i < active_.size(); ++i) work += active_[i]->start_ready();
  work += test_all();
  // Not counted as work: nothing tells whether the application's operations moved. Not
  // from inside the application's own MPI call (progress_in_call): a probe there changes
  // when MPI moves the application's requests. With MPICH + UCX, probes right after a
  // program's MPI_Isend let its rendezvous start and then stall until the wait (a halo
  // loop 7-37 % slower under overlap-run caller; docs/liboverlap.md).
  const bool probe = holds_.load(std::memory_order_acquire) > 0 && !in_call_pass;
  if (probe) {
    if (RequestTester* t = hold_tester_.load(std::memory_order_acquire)) t->poke();
  }
  for (std::size_t i = 0; i < active_.size(); ++i) {
    if (!active_[i]->complete()) work += active_[i]->start_ready();
  }
  drop_finished();
  note_outlook();
  --pass_depth;
  return work;
}

void Scheduler::note_outlook() {
  const LinkModel link = link_model();
  StepOutlook o;
  if (pace_steps_.load(std::memory_order_acquire) && link.known() && !active_.empty()) {
    const std::int64_t now = monotonic_ns();
    for (const auto& g : active_) {
      for (TaskId id : g->running()) {
        const Task& t = g->task(id);
        if (t.kind == TaskKind::send || t.kind == TaskKind::recv)
          o.add(t.posted_ns, link.step_ns(t.size), now);
      }
    }
  }
  next_due_ns_.store(o.next_due_ns, std::memory_order_release);
  shortest_step_ns_.store(o.shortest_step_ns, std::memory_order_release);
  last_due_ns_.store(o.last_due_ns, std::memory_order_release);
}

// Removes complete graphs and finished watches, keeping the submission order of the rest
// (graphs on one communicator start in that order).
void Scheduler::drop_finished() {
  const auto graphs_before = active_.size();
  std::erase_if(active_, [](const std::shared_ptr<TaskGraph>& g) { return g->complete(); });
  const auto watches_before = watches_.size();
  std::erase_if(watches_, [](const Watch& w) { return w.finished; });
  const std::size_t gone = (graphs_before - active_.size()) + (watches_before - watches_.size());
  if (gone > 0) in_flight_.fetch_sub(gone, std::memory_order_acq_rel);
}

int Scheduler::test_all() {
  entries_.clear();
  for (auto& g : active_) {
    if (g->complete()) continue;
    for (TaskId id : g->running()) entries_.push_back(Entry{&g->tester(), g.get(), id});
  }
  for (std::size_t i = 0; i < watches_.size(); ++i) {
    if (!watches_[i].finished) entries_.push_back(Entry{watches_[i].tester, nullptr, i});
  }
  if (entries_.empty()) return 0;
  // One test per kind of transport; in practice there is one (MPI), and then nothing is
  // sorted (std::stable_sort allocates a buffer on every call).
  const bool one_tester = std::all_of(entries_.begin(), entries_.end(), [&](const Entry& e) {
    return e.tester == entries_.front().tester;
  });
  if (!one_tester) {
    std::stable_sort(entries_.begin(), entries_.end(),
                     [](const Entry& a, const Entry& b) { return a.tester < b.tester; });
  }
  int work = 0;
  for (std::size_t begin = 0; begin < entries_.size();) {
    std::size_t end = begin + 1;
    while (end < entries_.size() && entries_[end].tester == entries_[begin].tester) ++end;
    work += test_group(begin, end);
    begin = end;
  }
  return work;
}

int Scheduler::test_group(std::size_t begin, std::size_t end) {
  const std::size_t n = end - begin;
  slots_.resize(n);
  bool any_watch = false;
  for (std::size_t k = 0; k < n; ++k) {
    const Entry& e = entries_[begin + k];
    slots_[k] =
        e.graph != nullptr ? e.graph->slot(static_cast<TaskId>(e.index)) : watches_[e.index].slot;
    any_watch = any_watch || e.graph == nullptr;
  }
  if (any_watch) statuses_.resize(n);
  done_.clear();
  entries_[begin].tester->test_some(slots_, done_, any_watch ? statuses_.data() : nullptr);
  for (std::size_t k : done_) {
    const Entry& e = entries_[begin + k];
    if (e.graph != nullptr) {
      e.graph->network_done(static_cast<TaskId>(e.index));
    } else {
      Watch& w = watches_[e.index];
      w.finished = true;
      w.slot = 0;
      w.done(statuses_[k]);
    }
  }
  return static_cast<int>(done_.size());
}

bool Scheduler::wait_for_work(std::stop_token stop) {
  std::unique_lock lock(inbox_mu_);
  return work_cv_.wait(lock, stop, [&] { return in_flight_.load() > 0; });
}

Scheduler::Woken Scheduler::sleep_unless_submitted(const std::stop_token& stop,
                                                   std::chrono::microseconds d,
                                                   std::optional<std::uint64_t> seen) {
  // Noted before the checks: a submission, hurry() or stop after them rings, and the wait
  // sees the doorbell changed.
  const std::uint32_t rung = doorbell_.rings();
  const std::stop_callback wake(stop, [this] { doorbell_.ring(); });
  const auto submitted = [&] {
    return seen && submissions_.load(std::memory_order_acquire) != *seen;
  };
  if (!stop.stop_requested() && !submitted() && !hurried()) doorbell_.wait(rung, d);
  if (stop.stop_requested()) return Woken::stopped;
  return submitted() ? Woken::submitted : Woken::timeout;
}

Scheduler::AbandonReport Scheduler::abandon_all(std::chrono::milliseconds grace) {
  std::unique_lock pass(pass_);  // blocking: no progress thread runs any more
  take_inbox();
  AbandonReport report;
  for (auto& g : active_) {
    if (g->complete()) continue;
    g->abandon();
    ++report.abandoned;
  }
  watches_.clear();
  const auto deadline = std::chrono::steady_clock::now() + grace;
  auto incomplete = [&] {
    return std::any_of(active_.begin(), active_.end(),
                       [](const auto& g) { return !g->complete(); });
  };
  while (incomplete() && std::chrono::steady_clock::now() < deadline) {
    if (run_pass() == 0) std::this_thread::sleep_for(std::chrono::microseconds(200));
  }
  for (auto& g : active_) {
    if (g->complete()) continue;
    ++report.stuck;
    stuck_.push_back(g);
  }
  active_.clear();
  note_outlook();
  std::lock_guard lock(inbox_mu_);
  holds_.store(0, std::memory_order_release);
  in_flight_.store(0, std::memory_order_release);
  return report;
}

}  // namespace overlap::progress
