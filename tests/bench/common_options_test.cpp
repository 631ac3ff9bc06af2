// --op lists: "all" means the collectives; the point-to-point halo only by its name.
#include "bench/common/common_options.hpp"

#include <gtest/gtest.h>

#include <algorithm>

#include "base/usage_error.hpp"

namespace overlap::bench {
namespace {

bool has(const std::vector<Collective>& ops, Collective op) {
  return std::find(ops.begin(), ops.end(), op) != ops.end();
}

TEST(OpList, AllMeansEveryCollectiveButNotHalo) {
  const auto ops = parse_collectives("all", "--op", kNonblockingNames);
  EXPECT_EQ(ops.size(), kNonblockingNames.values().size() - 1);
  EXPECT_FALSE(has(ops, Collective::halo));
  EXPECT_TRUE(has(ops, Collective::barrier));
  const auto blocking = parse_collectives("all", "--op", kBlockingNames);
  EXPECT_FALSE(has(blocking, Collective::halo));
}

TEST(OpList, HaloIsAskedForByName) {
  const auto ops = parse_collectives("ihalo,all,ihalo", "--op", kNonblockingNames);
  EXPECT_EQ(ops.front(), Collective::halo);
  EXPECT_EQ(std::count(ops.begin(), ops.end(), Collective::halo), 1);
  EXPECT_EQ(parse_collectives("halo", "--op", kBlockingNames),
            std::vector<Collective>{Collective::halo});
  // Each vocabulary its own name.
  EXPECT_THROW(parse_collectives("halo", "--op", kNonblockingNames), UsageError);
  EXPECT_NE(op_list_help(kNonblockingNames).find("ihalo"), std::string::npos);
}

TEST(OpList, HaloExchangesOneByteElements) { EXPECT_EQ(element_bytes(Collective::halo), 1); }

}  // namespace
}  // namespace overlap::bench
