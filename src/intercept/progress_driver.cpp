#include "intercept/progress_driver.hpp"

#include <sched.h>
#include <time.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <mutex>
#include <thread>
#include <vector>

namespace overlap::intercept {

namespace {

struct Watched {
  MPI_Request request;
  DoneCallback done;
  void* arg;
};

// Spin try-lock: the pass may be attempted from a signal handler, which must never block
// on a lock (std::mutex::try_lock is not promised to be async-signal-safe).
class PassToken {
 public:
  bool try_acquire() { return !busy_.exchange(true, std::memory_order_acquire); }
  void release() { busy_.store(false, std::memory_order_release); }

 private:
  std::atomic<bool> busy_{false};
};

class LocalProgress final : public ProgressDriver {
 public:
  LocalProgress(Policy policy, const ovx_shim* shim) : policy_(policy), shim_(shim) {
    if (policy_ != Policy::caller) thread_ = std::thread([this] { run(); });
  }
  ~LocalProgress() override { stop(); }

  void watch(MPI_Request request, DoneCallback done, void* arg) override {
    {
      std::lock_guard<std::mutex> lock(incoming_mutex_);
      incoming_.push_back({request, done, arg});
      incoming_count_.fetch_add(1, std::memory_order_release);
    }
    wake_.notify_one();
  }

  int poll() override {
    if (!token_.try_acquire()) return 0;
    const int done = pass();
    token_.release();
    return done;
  }

  bool background() const override { return thread_.joinable(); }

  void stop() override {
    {
      std::lock_guard<std::mutex> lock(incoming_mutex_);
      stopping_ = true;
    }
    wake_.notify_one();
    if (thread_.joinable()) thread_.join();
  }

  const char* mechanism() const override {
    switch (policy_) {
      case Policy::caller:
        return "intercepted calls and the fault handler (no thread)";
      case Policy::shared:
        return "a progress thread sleeping 20 us to 500 us between passes";
      case Policy::dedicated:
        return "a progress thread polling continuously while transfers are in flight";
    }
    return "";
  }

 private:
  // Only the token holder runs this.
  int pass() {
    if (incoming_count_.load(std::memory_order_acquire) > 0) {
      std::lock_guard<std::mutex> lock(incoming_mutex_);
      for (const Watched& w : incoming_) {
        requests_.push_back(w.request);
        watched_.push_back(w);
      }
      incoming_count_.fetch_sub(static_cast<int>(incoming_.size()), std::memory_order_relaxed);
      incoming_.clear();
    }
    if (requests_.empty()) return 0;
    indices_.resize(requests_.size());
    statuses_.resize(requests_.size());
    int outcount = 0;
    PMPI_Testsome(static_cast<int>(requests_.size()), requests_.data(), &outcount, indices_.data(),
                  statuses_.data());
    if (outcount <= 0) return 0;  // MPI_UNDEFINED: nothing active
    for (int k = 0; k < outcount; ++k) {
      const Watched& w = watched_[static_cast<std::size_t>(indices_[static_cast<std::size_t>(k)])];
      w.done(w.arg, &statuses_[static_cast<std::size_t>(k)]);
    }
    // Drop the completed ones (their requests are MPI_REQUEST_NULL now).
    std::size_t keep = 0;
    for (std::size_t i = 0; i < requests_.size(); ++i) {
      if (requests_[i] == MPI_REQUEST_NULL) continue;
      requests_[keep] = requests_[i];
      watched_[keep] = watched_[i];
      ++keep;
    }
    requests_.resize(keep);
    watched_.resize(keep);
    return outcount;
  }

  bool idle() {
    return incoming_count_.load(std::memory_order_acquire) == 0 && watched_count() == 0;
  }
  std::size_t watched_count() {
    // Read by the thread only while it holds the token (below), so no race.
    return requests_.size();
  }

  void run() {
    // The fault handler treats this thread as MPI-internal: it never waits here.
    shim_->thread_state()->in_mpi = 1;
    long sleep_ns = kMinSleepNs;
    for (;;) {
      int done = 0;
      bool empty = false;
      if (token_.try_acquire()) {
        done = pass();
        empty = requests_.empty();
        token_.release();
      }
      if (empty) {
        std::unique_lock<std::mutex> lock(incoming_mutex_);
        wake_.wait(lock, [this] { return stopping_ || !incoming_.empty(); });
        if (stopping_) return;
        sleep_ns = kMinSleepNs;
        continue;
      }
      {
        std::lock_guard<std::mutex> lock(incoming_mutex_);
        if (stopping_) return;
      }
      if (policy_ == Policy::dedicated) {
        sched_yield();
        continue;
      }
      sleep_ns = done > 0 ? kMinSleepNs : std::min(sleep_ns * 2, kMaxSleepNs);
      const timespec ts{0, sleep_ns};
      nanosleep(&ts, nullptr);
    }
  }

  static constexpr long kMinSleepNs = 20'000;
  static constexpr long kMaxSleepNs = 500'000;

  const Policy policy_;
  const ovx_shim* shim_;
  PassToken token_;
  std::mutex incoming_mutex_;
  std::condition_variable wake_;
  std::vector<Watched> incoming_;
  std::atomic<int> incoming_count_{0};
  bool stopping_ = false;
  // Owned by the token holder.
  std::vector<MPI_Request> requests_;
  std::vector<Watched> watched_;
  std::vector<int> indices_;
  std::vector<MPI_Status> statuses_;
  std::thread thread_;
};

}  // namespace

std::unique_ptr<ProgressDriver> make_local_progress(Policy policy, const ovx_shim* shim) {
  return std::make_unique<LocalProgress>(policy, shim);
}

}  // namespace overlap::intercept
