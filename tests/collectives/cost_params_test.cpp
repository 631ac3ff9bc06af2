// OVERLAP_COST_MODEL's forms (each bad one named with what is allowed), the rule every
// rank agrees by (the slowest link, in any order), and the clamp of the latency in bytes.
#include "collectives/cost_params.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

namespace overlap::collectives {
namespace {

TEST(CostParams, MeasureDefaultOrGivenValues) {
  EXPECT_TRUE(parse_cost_model("").measure);
  EXPECT_TRUE(parse_cost_model("measure").measure);
  const auto d = parse_cost_model("default");
  ASSERT_TRUE(d.given.has_value());
  EXPECT_FALSE(d.measure);
  EXPECT_EQ(d.given->source, CostSource::defaults);
  EXPECT_DOUBLE_EQ(latency_bytes(*d.given), 64.0 * 1024);

  const auto g = parse_cost_model("latency=20us,bandwidth=1Gbit/s");
  ASSERT_EQ(g.error, "");
  ASSERT_TRUE(g.given.has_value());
  EXPECT_DOUBLE_EQ(g.given->latency_s, 20e-6);
  EXPECT_DOUBLE_EQ(g.given->bandwidth, 125e6);
  EXPECT_EQ(g.given->source, CostSource::environment);
  EXPECT_DOUBLE_EQ(latency_bytes(*g.given), 2500);
  const auto h = parse_cost_model("bandwidth=2.5GB/s,latency=1.5ms");
  ASSERT_TRUE(h.given.has_value());
  EXPECT_DOUBLE_EQ(h.given->latency_s, 1.5e-3);
  EXPECT_DOUBLE_EQ(h.given->bandwidth, 2.5e9);
}

TEST(CostParams, RefusesWithWhatIsAllowed) {
  EXPECT_EQ(parse_cost_model("latency=5us").error,
            "OVERLAP_COST_MODEL: bandwidth is missing (allowed: measure, default, or "
            "latency=TIME,bandwidth=RATE, e.g. latency=5us,bandwidth=10GB/s)");
  EXPECT_EQ(parse_cost_model("latency=5parsecs,bandwidth=1GB/s").error,
            "OVERLAP_COST_MODEL: 'latency=5parsecs' needs a positive number and a time unit "
            "(ns, us, ms, s)");
  EXPECT_EQ(parse_cost_model("latency=5us,bandwidth=-1GB/s").error,
            "OVERLAP_COST_MODEL: 'bandwidth=-1GB/s' needs a positive number and a rate unit "
            "(B/s, kB/s, MB/s, GB/s, Mbit/s, Gbit/s)");
  EXPECT_NE(parse_cost_model("fast").error.find("'fast' is not understood"), std::string::npos);
  EXPECT_NE(parse_cost_model("latency=5us,bandwidth=1GB/s,jitter=1us").error.find("'jitter=1us'"),
            std::string::npos);
  EXPECT_FALSE(parse_cost_model("latency=0us,bandwidth=1GB/s").error.empty());
}

TEST(CostParams, EveryOrderOfRanksAgreesOnTheSlowestLink) {
  const std::vector<CostParams> ranks = {{2e-6, 5e9, CostSource::measured},
                                         {9e-6, 8e9, CostSource::measured},
                                         {4e-6, 1e9, CostSource::environment},
                                         {1e-6, 2e10, CostSource::defaults}};
  std::vector<int> order = {0, 1, 2, 3};
  do {
    CostParams c{0, 1e300, CostSource::defaults};
    for (int i : order) c = combine(c, ranks[static_cast<std::size_t>(i)]);
    EXPECT_DOUBLE_EQ(c.latency_s, 9e-6);
    EXPECT_DOUBLE_EQ(c.bandwidth, 1e9);
    EXPECT_EQ(c.source, CostSource::measured);
  } while (std::next_permutation(order.begin(), order.end()));
}

TEST(CostParams, LatencyInBytesStaysWithinBounds) {
  EXPECT_DOUBLE_EQ(latency_bytes({1e-9, 1e6, CostSource::measured}), 512);
  EXPECT_DOUBLE_EQ(latency_bytes({1.0, 1e10, CostSource::measured}), 16.0 * 1024 * 1024);
  EXPECT_DOUBLE_EQ(latency_bytes({1e-5, 1e9, CostSource::measured}), 1e4);
}

}  // namespace
}  // namespace overlap::collectives
