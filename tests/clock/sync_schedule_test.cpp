#include "clock/sync_schedule.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <numeric>
#include <random>
#include <set>
#include <stdexcept>
#include <utility>
#include <vector>

namespace overlap::clock {
namespace {

constexpr int kMaxRanks = 33;

int ceil_log2(int p) {
  int k = 0;
  while ((1 << k) < p) ++k;
  return k;
}

bool operator==(const SyncPair& a, const SyncPair& b) {
  return a.client == b.client && a.server == b.server;
}

std::vector<std::pair<int, int>> as_pairs(const SyncRound& round) {
  std::vector<std::pair<int, int>> out;
  for (const SyncPair& p : round) out.emplace_back(p.client, p.server);
  return out;
}

TEST(SyncSchedule, LogTakesCeilLog2PRoundsForEveryP) {
  for (int p = 1; p <= kMaxRanks; ++p) {
    EXPECT_EQ(static_cast<int>(SyncSchedule::make(SyncScheme::log, p).rounds.size()), ceil_log2(p))
        << "P = " << p;
  }
}

TEST(SyncSchedule, LinearTakesPMinusOneRoundsOfOnePairWithRankZero) {
  for (int p = 1; p <= kMaxRanks; ++p) {
    const SyncSchedule s = SyncSchedule::make(SyncScheme::linear, p);
    ASSERT_EQ(static_cast<int>(s.rounds.size()), p - 1) << "P = " << p;
    for (int k = 0; k < p - 1; ++k) {
      ASSERT_EQ(s.rounds[k].size(), 1u);
      EXPECT_EQ(s.rounds[k][0].client, 0);
      EXPECT_EQ(s.rounds[k][0].server, k + 1);
    }
  }
}

// The paper's figure 7 (P = 7) and the pure binomial tree (P = 8), spelled out.
TEST(SyncSchedule, LogRoundsForSevenAndEightRanks) {
  using Rounds = std::vector<std::vector<std::pair<int, int>>>;
  auto rounds_of = [](int p) {
    Rounds out;
    for (const SyncRound& r : SyncSchedule::make(SyncScheme::log, p).rounds) {
      out.push_back(as_pairs(r));
    }
    return out;
  };
  EXPECT_EQ(rounds_of(7), (Rounds{{{0, 1}, {2, 3}}, {{0, 2}}, {{0, 4}, {1, 5}, {2, 6}}}));
  EXPECT_EQ(rounds_of(8), (Rounds{{{0, 1}, {2, 3}, {4, 5}, {6, 7}}, {{0, 2}, {4, 6}}, {{0, 4}}}));
  EXPECT_EQ(SyncSchedule::make(SyncScheme::log, 7).parent,
            (std::vector<int>{-1, 0, 0, 2, 0, 1, 2}));
}

TEST(SyncSchedule, EveryRankButZeroIsServerExactlyOnceAndParentIsItsClient) {
  for (SyncScheme scheme : {SyncScheme::log, SyncScheme::linear}) {
    for (int p = 1; p <= kMaxRanks; ++p) {
      const SyncSchedule s = SyncSchedule::make(scheme, p);
      ASSERT_EQ(static_cast<int>(s.parent.size()), p);
      EXPECT_EQ(s.parent[0], -1);
      std::vector<int> served(static_cast<std::size_t>(p), 0);
      for (const SyncRound& round : s.rounds) {
        for (const SyncPair& pair : round) {
          ASSERT_GE(pair.client, 0);
          ASSERT_LT(pair.server, p);
          EXPECT_NE(pair.client, pair.server);
          ++served[static_cast<std::size_t>(pair.server)];
          EXPECT_EQ(s.parent[static_cast<std::size_t>(pair.server)], pair.client)
              << to_string(scheme) << " P = " << p << " server " << pair.server;
        }
      }
      EXPECT_EQ(served[0], 0) << to_string(scheme) << " P = " << p;
      for (int r = 1; r < p; ++r) {
        EXPECT_EQ(served[static_cast<std::size_t>(r)], 1)
            << to_string(scheme) << " P = " << p << " rank " << r;
      }
    }
  }
}

TEST(SyncSchedule, NoRankAppearsTwiceInOneRound) {
  for (SyncScheme scheme : {SyncScheme::log, SyncScheme::linear}) {
    for (int p = 1; p <= kMaxRanks; ++p) {
      const SyncSchedule s = SyncSchedule::make(scheme, p);
      for (std::size_t k = 0; k < s.rounds.size(); ++k) {
        std::set<int> seen;
        for (const SyncPair& pair : s.rounds[k]) {
          EXPECT_TRUE(seen.insert(pair.client).second)
              << to_string(scheme) << " P = " << p << " round " << k << " rank " << pair.client;
          EXPECT_TRUE(seen.insert(pair.server).second)
              << to_string(scheme) << " P = " << p << " round " << k << " rank " << pair.server;
        }
      }
    }
  }
}

// A client must already be linked to rank 0 (or be rank 0) by the end of the pass, and a
// server's chain must be short: the composed error grows with the number of hops.
TEST(SyncSchedule, ParentChainsReachRankZeroQuickly) {
  for (SyncScheme scheme : {SyncScheme::log, SyncScheme::linear}) {
    for (int p = 1; p <= kMaxRanks; ++p) {
      const SyncSchedule s = SyncSchedule::make(scheme, p);
      const int limit = scheme == SyncScheme::log ? ceil_log2(p) : 1;
      for (int r = 0; r < p; ++r) {
        int hops = 0;
        int at = r;
        while (at != 0 && hops <= p) {
          at = s.parent[static_cast<std::size_t>(at)];
          ASSERT_GE(at, 0) << to_string(scheme) << " P = " << p << " rank " << r;
          ++hops;
        }
        EXPECT_EQ(at, 0) << to_string(scheme) << " P = " << p << " rank " << r;
        EXPECT_LE(hops, limit) << to_string(scheme) << " P = " << p << " rank " << r;
      }
    }
  }
}

TEST(SyncSchedule, RejectsEmptyGroups) {
  EXPECT_THROW(SyncSchedule::make(SyncScheme::log, 0), std::invalid_argument);
  EXPECT_THROW(SyncSchedule::make(SyncScheme::linear, -1), std::invalid_argument);
  const SyncSchedule one = SyncSchedule::make(SyncScheme::log, 1);
  EXPECT_TRUE(one.rounds.empty());
  EXPECT_EQ(one.parent, std::vector<int>{-1});
}

TEST(SyncSchedule, SchemeNames) {
  EXPECT_EQ(to_string(SyncScheme::log), "log");
  EXPECT_EQ(to_string(SyncScheme::linear), "linear");
}

// ---- split_into_waves ----

bool fits_alone(const SyncPair& pair, const std::vector<int>& node_of,
                const std::vector<int>& cores) {
  const int a = node_of[static_cast<std::size_t>(pair.client)];
  const int b = node_of[static_cast<std::size_t>(pair.server)];
  if (a == b) return cores[static_cast<std::size_t>(a)] >= 2;
  return true;  // every node has at least one core
}

// The invariants of any correct split: every pair exactly once, no empty wave, and no node
// busier than its cores, except a node whose only busy pair in that wave cannot fit anyway.
void check_waves(const SyncRound& round, const std::vector<int>& node_of,
                 const std::vector<int>& cores, const std::vector<SyncRound>& waves) {
  std::multiset<std::pair<int, int>> expected;
  for (const SyncPair& p : round) expected.emplace(p.client, p.server);
  std::multiset<std::pair<int, int>> got;
  for (const SyncRound& wave : waves) {
    ASSERT_FALSE(wave.empty());
    for (const SyncPair& p : wave) got.emplace(p.client, p.server);

    std::map<int, int> load;                  // busy ranks per node
    std::map<int, std::vector<SyncPair>> on;  // pairs touching each node
    for (const SyncPair& p : wave) {
      const int a = node_of[static_cast<std::size_t>(p.client)];
      const int b = node_of[static_cast<std::size_t>(p.server)];
      ++load[a];
      ++load[b];
      on[a].push_back(p);
      if (b != a) on[b].push_back(p);
    }
    for (const auto& [node, busy] : load) {
      if (busy <= cores[static_cast<std::size_t>(node)]) continue;
      const auto& pairs = on[node];
      EXPECT_EQ(pairs.size(), 1u) << "node " << node << " oversubscribed: " << busy << " busy, "
                                  << cores[static_cast<std::size_t>(node)] << " cores";
      if (pairs.size() == 1) {
        EXPECT_FALSE(fits_alone(pairs[0], node_of, cores));
      }
    }
  }
  EXPECT_EQ(got, expected);
}

// Any valid split needs at least ceil(load / cores) waves on the busiest node.
std::size_t lower_bound_waves(const SyncRound& round, const std::vector<int>& node_of,
                              const std::vector<int>& cores) {
  std::map<int, int> load;
  for (const SyncPair& p : round) {
    ++load[node_of[static_cast<std::size_t>(p.client)]];
    ++load[node_of[static_cast<std::size_t>(p.server)]];
  }
  std::size_t bound = round.empty() ? 0 : 1;
  for (const auto& [node, busy] : load) {
    const int c = std::max(cores[static_cast<std::size_t>(node)], 2);  // oversized pairs: 1 each
    bound = std::max(bound, static_cast<std::size_t>((busy + c - 1) / c));
  }
  return bound;
}

bool capacity_suffices(const SyncRound& round, const std::vector<int>& node_of,
                       const std::vector<int>& cores) {
  std::map<int, int> load;
  for (const SyncPair& p : round) {
    ++load[node_of[static_cast<std::size_t>(p.client)]];
    ++load[node_of[static_cast<std::size_t>(p.server)]];
  }
  for (const auto& [node, busy] : load) {
    if (busy > cores[static_cast<std::size_t>(node)]) return false;
  }
  return true;
}

// A round of disjoint random pairs: denser than the schedules' rounds.
SyncRound random_matching(int ranks, std::mt19937_64& rng) {
  std::vector<int> order(static_cast<std::size_t>(ranks));
  std::iota(order.begin(), order.end(), 0);
  std::shuffle(order.begin(), order.end(), rng);
  SyncRound round;
  for (std::size_t i = 0; i + 1 < order.size(); i += 2) round.push_back({order[i], order[i + 1]});
  return round;
}

TEST(SplitIntoWaves, RespectsNodeCapacityForRandomTopologies) {
  std::mt19937_64 rng(20240611);
  int split_rounds = 0;
  for (int trial = 0; trial < 400; ++trial) {
    const int ranks = std::uniform_int_distribution<int>(2, 40)(rng);
    const int nodes = std::uniform_int_distribution<int>(1, 6)(rng);
    std::vector<int> node_of(static_cast<std::size_t>(ranks));
    for (int& n : node_of) n = std::uniform_int_distribution<int>(0, nodes - 1)(rng);
    std::vector<int> cores(static_cast<std::size_t>(nodes));
    for (int& c : cores) c = std::uniform_int_distribution<int>(1, 4)(rng);

    std::vector<SyncRound> rounds = SyncSchedule::make(SyncScheme::log, ranks).rounds;
    rounds.push_back(SyncSchedule::make(SyncScheme::linear, ranks).rounds.back());
    rounds.push_back(random_matching(ranks, rng));
    for (const SyncRound& round : rounds) {
      const std::vector<SyncRound> waves = split_into_waves(round, node_of, cores);
      SCOPED_TRACE("trial " + std::to_string(trial));
      check_waves(round, node_of, cores, waves);
      EXPECT_GE(waves.size(), lower_bound_waves(round, node_of, cores));
      if (capacity_suffices(round, node_of, cores)) {
        ASSERT_EQ(waves.size(), 1u);
        EXPECT_EQ(as_pairs(waves[0]), as_pairs(round));
      }
      if (waves.size() > 1) ++split_rounds;
    }
  }
  EXPECT_GT(split_rounds, 100);  // the random topologies did exercise splitting
}

TEST(SplitIntoWaves, NoSplitWhenCapacitySuffices) {
  // 16 ranks, 4 per node, 4 cores each: any round fits at once.
  std::vector<int> node_of;
  for (int r = 0; r < 16; ++r) node_of.push_back(r / 4);
  const std::vector<int> cores(4, 4);
  for (const SyncRound& round : SyncSchedule::make(SyncScheme::log, 16).rounds) {
    const auto waves = split_into_waves(round, node_of, cores);
    ASSERT_EQ(waves.size(), 1u);
    EXPECT_EQ(as_pairs(waves[0]), as_pairs(round));
  }
}

TEST(SplitIntoWaves, OversubscribedNodeRunsOnePairPerCorePair) {
  // 8 ranks on one node with 4 cores: the first round's 4 pairs need 8 cores, so 2 waves.
  const std::vector<int> node_of(8, 0);
  const SyncRound first = SyncSchedule::make(SyncScheme::log, 8).rounds[0];
  const auto waves = split_into_waves(first, node_of, {4});
  ASSERT_EQ(waves.size(), 2u);
  for (const SyncRound& w : waves) EXPECT_EQ(w.size(), 2u);
  check_waves(first, node_of, {4}, waves);
}

TEST(SplitIntoWaves, PairOnAOneCoreNodeGetsItsOwnWave) {
  // All ranks on a single 1-core node: no pair fits even alone, so each runs by itself.
  const std::vector<int> node_of(8, 0);
  const SyncRound first = SyncSchedule::make(SyncScheme::log, 8).rounds[0];
  const auto waves = split_into_waves(first, node_of, {1});
  ASSERT_EQ(waves.size(), first.size());
  for (std::size_t w = 0; w < waves.size(); ++w) {
    ASSERT_EQ(waves[w].size(), 1u);
    EXPECT_TRUE(waves[w][0] == first[w]);
  }
}

TEST(SplitIntoWaves, OversizedPairSharesItsWaveWithNoPairOnItsNode) {
  // Ranks 0, 1 share a 1-core node; 2, 3 and 4, 5 are on roomy nodes. The oversized pair
  // (0, 1) is the only one touching node 0 in its wave. Pairs on other nodes may join it:
  // they do not compete for node 0's core (the header's "a wave of its own" is stricter).
  const std::vector<int> node_of{0, 0, 1, 1, 2, 2};
  const std::vector<int> cores{1, 2, 2};
  const SyncRound round{{0, 1}, {2, 3}, {4, 5}};
  const auto waves = split_into_waves(round, node_of, cores);
  check_waves(round, node_of, cores, waves);
  EXPECT_EQ(waves.size(), 1u);
  // A second pair on node 0 must not join the oversized pair's wave.
  const std::vector<int> node_of2{0, 0, 0, 0, 1, 1};
  const SyncRound round2{{0, 1}, {2, 3}, {4, 5}};
  const auto waves2 = split_into_waves(round2, node_of2, {1, 2});
  check_waves(round2, node_of2, {1, 2}, waves2);
  EXPECT_EQ(waves2.size(), 2u);
}

TEST(SplitIntoWaves, PairsAcrossNodesNeedOneCoreOnEachSide) {
  // One rank per node, 1 core each: every pair spans two nodes and fits; one wave.
  std::vector<int> node_of(8);
  std::iota(node_of.begin(), node_of.end(), 0);
  const std::vector<int> cores(8, 1);
  for (const SyncRound& round : SyncSchedule::make(SyncScheme::log, 8).rounds) {
    EXPECT_EQ(split_into_waves(round, node_of, cores).size(), 1u);
  }
  // Two ranks per 1-core node, pairs across nodes: (0,2) and (1,3) both need nodes 0 and 1.
  const std::vector<int> two_per_node{0, 0, 1, 1};
  const SyncRound crossing{{0, 2}, {1, 3}};
  const auto waves = split_into_waves(crossing, two_per_node, {1, 1});
  EXPECT_EQ(waves.size(), 2u);
  check_waves(crossing, two_per_node, {1, 1}, waves);
}

TEST(SplitIntoWaves, EmptyRoundHasNoWaves) {
  EXPECT_TRUE(split_into_waves({}, {0, 0}, {2}).empty());
}

TEST(SplitIntoWaves, NodeIndexBeyondCoresIsRejected) {
  EXPECT_THROW(split_into_waves({{0, 1}}, {0, 1}, {4}), std::invalid_argument);
}

}  // namespace
}  // namespace overlap::clock
