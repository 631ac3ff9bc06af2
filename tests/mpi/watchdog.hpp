// Ends a test program that hangs with a message instead of a silent ctest timeout.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

namespace ovx_test {

class Watchdog {
 public:
  // After `seconds`, prints "FAIL: <what()> did not finish within N s (hang)" and exits
  // with status 3 (not MPI_Abort: it could hang behind the stuck call itself).
  Watchdog(int seconds, std::function<std::string()> what)
      : what_(std::move(what)), thread_([this, seconds] { watch(seconds); }) {}
  Watchdog(const Watchdog&) = delete;
  Watchdog& operator=(const Watchdog&) = delete;
  ~Watchdog() {
    {
      std::lock_guard lock(mu_);
      done_ = true;
    }
    cv_.notify_one();
    thread_.join();
  }

 private:
  void watch(int seconds) {
    std::unique_lock lock(mu_);
    if (cv_.wait_for(lock, std::chrono::seconds(seconds), [this] { return done_; })) return;
    std::fprintf(stderr, "FAIL: %s did not finish within %d s (hang)\n", what_().c_str(), seconds);
    std::fflush(stderr);
    std::_Exit(3);
  }
  std::function<std::string()> what_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool done_ = false;
  std::thread thread_;  // last: starts once the members it uses exist
};

}  // namespace ovx_test
