#include "progress/progress_thread.hpp"

#include <pthread.h>
#include <sys/prctl.h>

#include <future>

#include "progress/thread_placement.hpp"

namespace overlap::progress {
namespace {

inline void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
}

// Names the thread and tells the scheduler its passes are not the application's.
void name_this_thread() {
  pthread_setname_np(pthread_self(), "ovx-progress");
  Scheduler::mark_progress_thread();
}
// Also named by its creator, so it carries the name once the engine has started (the
// interception's fault handler and tests recognise the engine's thread by it).
void name_thread(std::jthread& t) { pthread_setname_np(t.native_handle(), "ovx-progress"); }

// How much later than asked the kernel may wake this thread (default 50 µs, which turns
// a 20 µs pause into up to 70 µs). 0 leaves the kernel's default.
void set_timer_slack(std::chrono::nanoseconds slack) {
  if (slack.count() > 0)
    prctl(PR_SET_TIMERSLACK, static_cast<unsigned long>(slack.count()), 0, 0, 0);
}

}  // namespace

ProgressThread::ProgressThread(Scheduler& scheduler, const EngineConfig& config, ThreadHooks hooks)
    : scheduler_(scheduler), hooks_(std::move(hooks)) {
  if (config.policy == ProgressPolicy::shared) {
    thread_ = std::jthread([this, b = config.backoff](std::stop_token st) {
      name_this_thread();
      set_timer_slack(b.timer_slack);
      run_shared(st, b);
    });
    name_thread(thread_);
    return;
  }
  if (config.policy == ProgressPolicy::caller) {
    if (config.rescue) {
      thread_ = std::jthread([this, config](std::stop_token st) {
        name_this_thread();
        run_rescue(st, config);
      });
      name_thread(thread_);
    }
    return;
  }
  // Dedicated: bind inside the new thread and report back, so a bad core fails the
  // constructor.
  std::promise<CoreChoice> bound;
  auto result = bound.get_future();
  const int index = config.core_index;
  thread_ = std::jthread([this, index, &bound](std::stop_token st) {
    name_this_thread();
    CoreChoice c = bind_this_thread_to_core(index);
    const bool ok = c.error.empty();
    bound.set_value(std::move(c));
    if (ok) run_dedicated(st);
  });
  CoreChoice c = result.get();
  if (!c.error.empty()) {
    thread_.join();
    error_ = c.error;
    return;
  }
  bound_core_ = c.core;
}

ProgressThread::~ProgressThread() {
  if (thread_.joinable()) {
    thread_.request_stop();
    thread_.join();
  }
}

ThreadStats ProgressThread::stats() const {
  return {passes_.load(),          busy_passes_.load(),    sleeps_.load(),    rescue_passes_.load(),
          woken_by_submit_.load(), hurried_passes_.load(), stood_down_.load()};
}

int ProgressThread::pass() {
  if (hooks_.safe_point) hooks_.safe_point();
  const int work = scheduler_.progress();
  passes_.fetch_add(1, std::memory_order_relaxed);
  if (work > 0) busy_passes_.fetch_add(1, std::memory_order_relaxed);
  return work;
}

bool ProgressThread::pause(const std::stop_token& stop, std::chrono::microseconds d) {
  sleeps_.fetch_add(1, std::memory_order_relaxed);
  std::unique_lock lock(pause_mu_);
  pause_cv_.wait_for(lock, stop, d, [] { return false; });
  return !stop.stop_requested();
}

bool ProgressThread::pause_unless_hurried(const std::stop_token& stop,
                                          std::chrono::microseconds d) {
  if (!scheduler_.hurried()) sleeps_.fetch_add(1, std::memory_order_relaxed);
  return scheduler_.sleep_unless_submitted(stop, d, std::nullopt) != Scheduler::Woken::stopped;
}

bool ProgressThread::pause_for_work(const std::stop_token& stop, std::chrono::microseconds d,
                                    std::uint64_t seen, Backoff& backoff) {
  sleeps_.fetch_add(1, std::memory_order_relaxed);
  switch (scheduler_.sleep_unless_submitted(stop, d, seen)) {
    case Scheduler::Woken::stopped:
      return false;
    case Scheduler::Woken::submitted:
      woken_by_submit_.fetch_add(1, std::memory_order_relaxed);
      backoff.reset();
      return true;
    case Scheduler::Woken::timeout:
      return true;
  }
  return true;
}

void ProgressThread::run_dedicated(std::stop_token stop) {
  while (scheduler_.wait_for_work(stop)) {
    if (pass() == 0) cpu_relax();
  }
}

void ProgressThread::run_shared(std::stop_token stop, BackoffConfig config) {
  Backoff backoff(config);
  scheduler_.ring_on_submit(config.wake_on_submit);
  scheduler_.pace_steps(config.pauses_per_step > 0);
  struct StopPacing {
    Scheduler& s;
    ~StopPacing() { s.pace_steps(false); }
  } stop_pacing{scheduler_};
  std::uint64_t calls_seen = scheduler_.application_calls();
  std::int64_t due_seen = kNoTime;  // the earliest expected completion at the last look
  while (scheduler_.wait_for_work(stop)) {
    // Noted before the pass: what is submitted during it (e.g. by a completion callback)
    // waits in the inbox for the next pass, so it must cut the pause short too.
    const std::uint64_t seen = scheduler_.submissions();
    // The application called progress since this thread last looked: it is inside MPI
    // (waiting on a collective, or in a call that runs MPI's progress hook) and passes
    // itself. Stand down: no pass, a longer pause, until its calls stop. A hurried
    // scheduler has a waiter that cannot pass, so the thread never stands down then.
    const std::uint64_t calls = scheduler_.application_calls();
    const bool driven = config.stand_down && calls != calls_seen && !scheduler_.hurried();
    calls_seen = calls;
    if (driven) stood_down_.fetch_add(1, std::memory_order_relaxed);
    const int work = driven ? 0 : pass();
    if (scheduler_.in_flight() == 0) {
      backoff.reset();  // the next submission is served at once by wait_for_work
      continue;
    }
    if (scheduler_.hurried()) {
      // A thread is blocked on this work (Scheduler::hurry): poll as its MPI call would, and
      // start the sleeps short again afterwards, since the transfer is still moving.
      hurried_passes_.fetch_add(1, std::memory_order_relaxed);
      backoff.reset();
      if (work == 0) cpu_relax();
      continue;
    }
    // A step reached its expected completion since the last look: look again soon, as
    // right after posting it (the completion is most likely now, not 500 µs later).
    const std::int64_t now = monotonic_ns();
    const StepOutlook outlook = scheduler_.outlook();
    if (config.pauses_per_step > 0 && now >= due_seen) backoff.reset();
    due_seen = outlook.next_due_ns;
    const auto backed_off = backoff.next(work);
    const auto d =
        paced_pause(backed_off, outlook, now, {config.pauses_per_step, config.min_sleep});
    if (d.count() == 0 && backed_off.count() > 0) continue;  // a completion is due: no pause
    if (!(config.wake_on_submit ? pause_for_work(stop, d, seen, backoff)
                                : pause_unless_hurried(stop, d)))
      return;
  }
}

void ProgressThread::run_rescue(std::stop_token stop, const EngineConfig& config) {
  const auto watch_period =
      std::chrono::duration_cast<std::chrono::microseconds>(config.rescue_after);
  bool told = false;
  while (scheduler_.wait_for_work(stop)) {
    if (hooks_.safe_point) hooks_.safe_point();
    const std::uint64_t seen = scheduler_.passes();
    if (!pause(stop, watch_period)) return;
    if (scheduler_.passes() != seen || scheduler_.in_flight() == 0) continue;
    // Nobody progressed anything for a whole period: take over until someone does.
    Backoff backoff(config.backoff);
    while (scheduler_.in_flight() > 0) {
      const int work = pass();
      rescue_passes_.fetch_add(1, std::memory_order_relaxed);
      if (work > 0 && !told && hooks_.first_rescue) {
        told = true;
        hooks_.first_rescue();
      }
      const std::uint64_t mine = scheduler_.passes();
      if (!pause(stop, backoff.next(work))) return;
      if (scheduler_.passes() != mine) break;  // the application progresses again
    }
  }
}

}  // namespace overlap::progress
