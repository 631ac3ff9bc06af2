#include "clock/offset_estimator.hpp"

#include <gtest/gtest.h>

#include <cstddef>
#include <stdexcept>
#include <utility>
#include <vector>

namespace overlap::clock {
namespace {

// Replays a scripted sequence of round trips. Exchange i starts at t1 = 10 * i and carries
// t2 = 1000 + i, so the chosen exchange is identifiable from any of its timestamps.
class ScriptedChannel final : public PingPongChannel {
 public:
  explicit ScriptedChannel(std::vector<double> rtts) : rtts_(std::move(rtts)) {}

  Exchange exchange() override {
    if (calls_ >= rtts_.size()) throw std::logic_error("estimator asked for too many exchanges");
    const double t1 = 10.0 * static_cast<double>(calls_);
    const Exchange e{t1, 1000.0 + static_cast<double>(calls_), t1 + rtts_[calls_]};
    ++calls_;
    return e;
  }

  std::size_t calls() const { return calls_; }

 private:
  std::vector<double> rtts_;
  std::size_t calls_ = 0;
};

EstimatorConfig with_patience(int patience, std::int64_t max_exchanges = 1'000'000) {
  EstimatorConfig c;
  c.patience = patience;
  c.max_exchanges = max_exchanges;
  return c;
}

TEST(EstimateOffset, StopsAfterPatienceExchangesWithoutImprovement) {
  // Best at index 2; then 3 exchanges that do not beat it (ties do not count as better).
  ScriptedChannel ch({5, 4, 3, 3, 7, 3, 1, 1, 1});
  const OffsetEstimate est = estimate_offset(ch, with_patience(3));
  EXPECT_EQ(ch.calls(), 6u);
  EXPECT_EQ(est.exchanges, 6);
  EXPECT_FALSE(est.hit_limit);
  EXPECT_EQ(est.best.t2, 1002.0);  // the first exchange that reached the minimum
  EXPECT_EQ(est.best.rtt(), 3.0);
}

TEST(EstimateOffset, AnImprovementRestartsTheCount) {
  // Patience counts CONSECUTIVE non-improvements: 2 misses, a new best at index 3, then 3.
  ScriptedChannel ch({5, 6, 7, 4, 8, 9, 10, 0.5});
  const OffsetEstimate est = estimate_offset(ch, with_patience(3));
  EXPECT_EQ(ch.calls(), 7u);
  EXPECT_EQ(est.exchanges, 7);
  EXPECT_EQ(est.best.t2, 1003.0);
  EXPECT_FALSE(est.hit_limit);
}

TEST(EstimateOffset, PatienceOneStopsAtTheFirstMiss) {
  ScriptedChannel ch({3, 2, 1, 5, 0.1});
  const OffsetEstimate est = estimate_offset(ch, with_patience(1));
  EXPECT_EQ(est.exchanges, 4);
  EXPECT_EQ(ch.calls(), 4u);
  EXPECT_EQ(est.best.t2, 1002.0);
}

TEST(EstimateOffset, KeepsTheWholeMinRttExchange) {
  // The minimum is in the middle, surrounded by larger round trips.
  ScriptedChannel ch({9, 8, 2.5, 6, 7, 8, 9});
  const OffsetEstimate est = estimate_offset(ch, with_patience(4));
  EXPECT_EQ(est.exchanges, 7);
  EXPECT_EQ(est.best.t1, 20.0);
  EXPECT_EQ(est.best.t2, 1002.0);
  EXPECT_EQ(est.best.t3, 22.5);
}

TEST(EstimateOffset, HitsTheLimitWhenRttKeepsImproving) {
  std::vector<double> falling;
  for (int i = 0; i < 50; ++i) falling.push_back(100.0 - i);
  ScriptedChannel ch(falling);
  const OffsetEstimate est = estimate_offset(ch, with_patience(100, 10));
  EXPECT_TRUE(est.hit_limit);
  EXPECT_EQ(est.exchanges, 10);
  EXPECT_EQ(ch.calls(), 10u);
  EXPECT_EQ(est.best.t2, 1009.0);  // the last one was the best so far
}

TEST(EstimateOffset, StoppingByTheRuleAtTheLimitIsNotHittingIt) {
  // The rule is satisfied by exchange 4, which is also max_exchanges.
  ScriptedChannel ch({1, 2, 2, 2, 0.5});
  const OffsetEstimate est = estimate_offset(ch, with_patience(3, 4));
  EXPECT_EQ(est.exchanges, 4);
  EXPECT_FALSE(est.hit_limit);
}

TEST(EstimateOffset, ServerToClientPairsServerTimeWithClientMidpoint) {
  OffsetEstimate est;
  est.best = {10.0, 105.0, 12.0};
  const TimePoint p = est.server_to_client();
  EXPECT_EQ(p.x, 105.0);  // server clock
  EXPECT_EQ(p.y, 11.0);   // client clock, midpoint of t1 and t3
  EXPECT_EQ(est.best.rtt(), 2.0);
  EXPECT_EQ(est.best.client_midpoint(), 11.0);
}

}  // namespace
}  // namespace overlap::clock
