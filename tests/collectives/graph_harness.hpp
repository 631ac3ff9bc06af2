// Runs one task graph per simulated rank over the fake network until all complete, the
// way a progress engine would, and fails loudly on a stall or on messages left behind.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "collectives/algorithms.hpp"
#include "progress/fake_network.hpp"
#include "progress/task_graph.hpp"

namespace overlap::testing {

// The order graphs are advanced in within a round. Different orders make tasks finish in
// different orders, which flushes out schedules that only work for one interleaving.
// `jittered` also shuffles, and holds random links for a few rounds (slow links), so
// messages overtake each other across ranks and buffers sit unread for a while: a task
// that reads or overwrites a buffer too early then shows up as wrong data.
enum class Order { forward, backward, shuffled, jittered };

class GraphHarness {
 public:
  explicit GraphHarness(int ranks) : net_(ranks), ranks_(ranks) {}

  FakeNetwork& net() { return net_; }

  // One graph per rank for a collective on `context`, filled by build(graph, rank).
  template <class Build>
  void add(int context, Build build) {
    for (int r = 0; r < ranks_; ++r) {
      graphs_.push_back(std::make_unique<progress::TaskGraph>(net_.endpoint(r, context)));
      build(*graphs_.back(), r);
    }
  }

  // Advances all graphs round by round until every one is complete. Without a seed, each
  // run takes the next one of a fixed sequence: runs differ, yet the binary is repeatable.
  ::testing::AssertionResult run(Order order = Order::forward, unsigned seed = 0) {
    static unsigned next_seed = 1;
    if (seed == 0) seed = next_seed++;
    std::vector<progress::TaskGraph*> gs;
    for (auto& g : graphs_) gs.push_back(g.get());
    if (order == Order::backward) std::reverse(gs.begin(), gs.end());
    std::mt19937 rng(seed);
    std::vector<std::pair<int, int>> held;
    // A whole round without a task starting or finishing, and without held links, changes
    // nothing in the network, so the next round would be idle too: that is a deadlock.
    for (int idle = 0, round = 0; idle < 3; ++round) {
      if (order == Order::shuffled || order == Order::jittered) {
        std::shuffle(gs.begin(), gs.end(), rng);
      }
      if (order == Order::jittered) rehold(held, idle == 0, rng);
      int work = 0;
      bool all = true;
      for (auto* g : gs) {
        work += g->advance();
        all = all && g->complete();
      }
      if (all) {
        for (auto [src, dst] : held) net_.hold(src, dst, false);
        return check_network();
      }
      idle = work == 0 ? idle + 1 : 0;
      if (round > 1'000'000) return ::testing::AssertionFailure() << "no end after 10^6 rounds";
    }
    return ::testing::AssertionFailure() << "graphs stalled; incomplete: " << incomplete();
  }

  // Slow links: every round a held link is released with probability 1/8 (so it stays
  // held for 8 rounds on average, long enough for other ranks to run many steps ahead),
  // and one new link is held, up to one per rank. An idle round releases everything: a
  // stall can then be told from bad luck.
  void rehold(std::vector<std::pair<int, int>>& held, bool busy, std::mt19937& rng) {
    std::bernoulli_distribution release(busy ? 0.125 : 1.0);
    for (std::size_t i = 0; i < held.size();) {
      if (release(rng)) {
        net_.hold(held[i].first, held[i].second, false);
        held[i] = held.back();
        held.pop_back();
      } else {
        ++i;
      }
    }
    if (!busy || ranks_ < 2 || held.size() >= static_cast<std::size_t>(ranks_)) return;
    std::uniform_int_distribution<int> pick(0, ranks_ - 1);
    const int src = pick(rng), dst = pick(rng);
    if (src == dst || std::find(held.begin(), held.end(), std::pair{src, dst}) != held.end())
      return;
    held.emplace_back(src, dst);
    net_.hold(src, dst, true);
  }

  ::testing::AssertionResult check_network() const {
    if (net_.messages_pending() != 0) {
      return ::testing::AssertionFailure() << net_.messages_pending() << " messages never received";
    }
    for (int r = 0; r < ranks_; ++r) {
      for (const auto& p : net_.log(r)) {
        if (p.tag < 0 || p.tag >= collectives::kTagsPerCollective) {
          return ::testing::AssertionFailure() << "rank " << r << " used tag " << p.tag;
        }
      }
    }
    return ::testing::AssertionSuccess();
  }

  std::string incomplete() const {
    std::string out;
    for (std::size_t i = 0; i < graphs_.size(); ++i) {
      if (graphs_[i]->complete()) continue;
      const auto rank = i % static_cast<std::size_t>(ranks_);
      const auto added = i / static_cast<std::size_t>(ranks_);
      out += " rank " + std::to_string(rank) + " (collective " + std::to_string(added) + ")";
    }
    return out;
  }

  FakeNetwork net_;
  int ranks_;
  std::vector<std::unique_ptr<progress::TaskGraph>> graphs_;
};

}  // namespace overlap::testing
