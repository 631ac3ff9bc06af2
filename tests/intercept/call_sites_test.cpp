// CallSites: the statistics every intercepted call adds to, and what the report reads.
#include "intercept/report/call_sites.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <set>
#include <thread>
#include <utility>
#include <vector>

namespace overlap::intercept {
namespace {

// The calling thread's counters, as overlap-run's core reaches them (its cache is in the
// shim's thread state there).
SiteCounters& mine(CallSites& sites, Call call, std::uintptr_t site) {
  thread_local SiteCache cache{};
  thread_local const std::uint64_t serial = [] {
    static std::atomic<std::uint64_t> last{0};
    return ++last;
  }();
  return sites.counters(call, site, cache, serial);
}

const SiteStats* find(const std::vector<SiteStats>& snap, Call call, std::uintptr_t site) {
  for (const SiteStats& s : snap)
    if (s.call == call && s.site == site) return &s;
  return nullptr;
}

TEST(CallSites, WindowsTouchesAndReasons) {
  CallSites sites;
  ovx_count_call(&mine(sites, Call::recv, 0x10), 100);
  ovx_count_call(&mine(sites, Call::recv, 0x10), 100);
  sites.deferred(mine(sites, Call::recv, 0x10), false);
  ovx_count_straight(&mine(sites, Call::recv, 0x10), static_cast<int>(Reason::shares_first_page));
  sites.deferred(mine(sites, Call::send, 0x20), true);
  EXPECT_EQ(sites.deferred_total(), 2u);  // every site, not-deferred calls not counted
  for (double w : {3.0, 1.0, 2.0}) {
    Completion c;
    c.window_s = w;
    c.touched = w < 2.5;
    c.touch_pc = 0x99;
    c.touch_delay_s = w;
    c.faults = 1;
    c.stall_s = 0.5;
    sites.completed(Call::recv, 0x10, c);
  }
  const auto snap = sites.snapshot();
  ASSERT_EQ(snap.size(), 2u);
  const SiteStats& s = snap[0].call == Call::recv ? snap[0] : snap[1];
  EXPECT_EQ(s.calls, 2u);
  EXPECT_EQ(s.deferred, 1u);
  EXPECT_EQ(s.bytes, 200u);
  EXPECT_EQ(s.not_deferred[static_cast<int>(Reason::shares_first_page)], 1u);
  EXPECT_DOUBLE_EQ(median_window(s), 2.0);
  EXPECT_DOUBLE_EQ(s.window_min_s, 1.0);
  EXPECT_DOUBLE_EQ(s.window_max_s, 3.0);
  EXPECT_EQ(s.touched_before_completion, 2u);
  EXPECT_EQ(s.touches.at(0x99).count, 2u);
  EXPECT_DOUBLE_EQ(s.touches.at(0x99).delay_min_s, 1.0);
  EXPECT_DOUBLE_EQ(s.stall_s, 1.5);
}

// Each thread counts in its own block; the snapshot sums them. Many sites per thread, so
// the threads' caches of recent sites evict and find their blocks again.
TEST(CallSites, ThreadsCountApartAndTheSnapshotSums) {
  CallSites sites;
  constexpr int kThreads = 4, kRounds = 2000, kSites = 40;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&sites] {
      for (int r = 0; r < kRounds; ++r) {
        for (std::uintptr_t site = 1; site <= kSites; ++site) {
          SiteCounters& counts = mine(sites, Call::send, site * 64);
          ovx_count_call(&counts, 8);
          ovx_count_straight(&counts, static_cast<int>(Reason::below_threshold));
        }
        ovx_count_call(&mine(sites, Call::sendrecv_recv, 64), 1);  // the other half of a call
        sites.deferred(mine(sites, Call::sendrecv_recv, 64), r % 2 == 0);
      }
    });
  }
  for (std::thread& t : threads) t.join();
  const auto snap = sites.snapshot();
  ASSERT_EQ(snap.size(), static_cast<std::size_t>(kSites + 1));
  for (std::uintptr_t site = 1; site <= kSites; ++site) {
    const SiteStats* s = find(snap, Call::send, site * 64);
    ASSERT_NE(s, nullptr) << site;
    EXPECT_EQ(s->calls, std::uint64_t{kThreads * kRounds});
    EXPECT_EQ(s->bytes, std::uint64_t{8 * kThreads * kRounds});
    EXPECT_EQ(s->not_deferred[static_cast<int>(Reason::below_threshold)],
              std::uint64_t{kThreads * kRounds});
    EXPECT_EQ(s->deferred, 0u);
  }
  const SiteStats* half = find(snap, Call::sendrecv_recv, 64);
  ASSERT_NE(half, nullptr);
  EXPECT_EQ(half->calls, std::uint64_t{kThreads * kRounds});
  EXPECT_EQ(half->deferred, std::uint64_t{kThreads * kRounds});
  EXPECT_EQ(half->deferred_by_copy, std::uint64_t{kThreads * kRounds / 2});
  EXPECT_EQ(sites.deferred_total(), std::uint64_t{kThreads * kRounds});
}

// A thread's cache of recent sites must not hand an object the counters of an earlier
// one (which may have lived at the same address).
TEST(CallSites, AFreshObjectStartsFromZero) {
  for (int i = 0; i < 3; ++i) {
    CallSites sites;
    ovx_count_call(&mine(sites, Call::recv, 0x40), 10);
    const auto snap = sites.snapshot();
    ASSERT_EQ(snap.size(), 1u);
    EXPECT_EQ(snap[0].calls, 1u) << "object " << i;
    EXPECT_EQ(snap[0].bytes, 10u) << "object " << i;
  }
}

// A loop's send and receive sites, and the two halves of one MPI_Sendrecv, must stay in the
// thread's cache together (else every call would take the core's lock, and the shim's
// straight path would never serve them): call sites some bytes apart, with the call
// types a loop mixes, at many load addresses.
TEST(CallSites, ALoopsSitesStayCachedTogether) {
  CallSites sites;
  for (std::uintptr_t base = 0x555555550000; base < 0x555555550000 + (64 << 12); base += 1 << 12) {
    const std::pair<Call, std::uintptr_t> loops[][2] = {
        {{Call::send, base + 0x22f}, {Call::recv, base + 0x25f}},
        {{Call::send, base + 0x200}, {Call::recv, base + 0x230}},  // differ in bits 4-5 only
        {{Call::sendrecv_send, base + 0x2a0}, {Call::sendrecv_recv, base + 0x2a0}},
    };
    for (const auto& loop : loops) {
      SiteCache cache{};
      for (int round = 0; round < 3; ++round)
        for (const auto& [call, site] : loop) sites.counters(call, site, cache, 1);
      for (const auto& [call, site] : loop) {
        const std::uintptr_t key = ovx_site_key(static_cast<int>(call), site);
        EXPECT_NE(ovx_site_cached(&cache, sites.id(), key), nullptr)
            << call_name(call) << " at 0x" << std::hex << site;
      }
    }
  }
}

// The cache's sets are chosen from every bit of a site: nearby sites spread out.
TEST(CallSites, NearbySitesSpreadOverTheCache) {
  SiteCache cache{};
  std::set<const void*> used;
  for (std::uintptr_t i = 0; i < 64; ++i)
    used.insert(ovx_site_set(&cache, ovx_site_key(0, 0x401000 + 16 * i)));
  EXPECT_GE(used.size(), 12u);
}

// A blocking collective's site whose results are read at once (touched within the first
// eighth of the run) is waited for after kAtOnceStreak such completions in a row, except
// every kAtOnceProbe-th call; one completion read late starts the count again.
TEST(CallSites, ResultsReadAtOnceStopDeferral) {
  CallSites sites;
  const auto complete = [&sites](double touch_after, double run) {
    Completion c;
    c.touched = touch_after < run;
    c.touch_delay_s = c.touched ? touch_after : 0;
    c.window_s = std::min(touch_after, run);
    c.duration_s = run;
    sites.completed(Call::allreduce, 0x40, c);
  };
  for (int i = 0; i < CallSites::kAtOnceStreak; ++i) {
    EXPECT_FALSE(sites.observed_at_once(Call::allreduce, 0x40)) << i;
    complete(0.001, 0.1);  // read after 1 % of the run
  }
  int waited = 0, deferred = 0;
  for (std::uint64_t i = 0; i < 2 * CallSites::kAtOnceProbe; ++i)
    (sites.observed_at_once(Call::allreduce, 0x40) ? waited : deferred) += 1;
  EXPECT_EQ(deferred, 2);  // the probes
  EXPECT_EQ(waited, static_cast<int>(2 * CallSites::kAtOnceProbe) - 2);
  EXPECT_FALSE(sites.observed_at_once(Call::allreduce, 0x41));  // another site
  complete(0.05, 0.1);  // a probe read at half the run: deferral pays again
  EXPECT_FALSE(sites.observed_at_once(Call::allreduce, 0x40));
  complete(0.2, 0.1);  // not touched before completion
  EXPECT_FALSE(sites.observed_at_once(Call::allreduce, 0x40));
}

}  // namespace
}  // namespace overlap::intercept
