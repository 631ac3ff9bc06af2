#include "bench/advise/program_loop.hpp"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "base/usage_error.hpp"

namespace overlap::bench {
namespace {

using nlohmann::json;

json site(const std::string& call, const std::string& text, int accepted, long long bytes,
          json window) {
  return {{"call", call},
          {"site", {{"text", text}, {"address", "0x1"}}},
          {"calls", accepted},
          {"routed", accepted},
          {"mpi_own", json::object()},
          {"accepted", accepted},
          {"bytes", bytes},
          {"wait_window_s", window}};
}

json window(int completed, double median, double mean) {
  return {{"completed", completed},
          {"median", median},
          {"mean", mean},
          {"min", median / 2},
          {"max", median * 2}};
}

json report(std::vector<json> rank_sites) {
  json ranks = json::array();
  int r = 0;
  for (json& s : rank_sites) ranks.push_back({{"rank", r++}, {"collective_sites", s}});
  return {{"schema_version", 1}, {"benchmark", "overlap-run"}, {"ranks", ranks}};
}

ProgramLoop read(const json& doc, std::optional<Collective> op = std::nullopt) {
  return program_loop_from_report(doc.dump(), "r.json", op);
}

std::string refusal(const std::string& text, std::optional<Collective> op = std::nullopt) {
  try {
    program_loop_from_report(text, "r.json", op);
  } catch (const UsageError& e) {
    return e.what();
  }
  return "";
}

TEST(ProgramLoop, TakesTheSiteWithTheMostTimeBetweenCallAndWait) {
  // A short, frequent allreduce (100 x 1 ms = 0.1 s per rank) and a long, rare alltoall
  // (10 x 20 ms = 0.2 s per rank): the alltoall's phase has more to overlap.
  const json a0 = site("MPI_Iallreduce", "cg.c:10", 100, 100 * 8, window(100, 1e-3, 1e-3));
  const json t0 = site("MPI_Ialltoall", "fft.c:20", 10, 10 * 65536, window(10, 20e-3, 20e-3));
  const json t1 = site("MPI_Ialltoall", "fft.c:20", 10, 10 * 65536, window(10, 30e-3, 30e-3));
  const ProgramLoop loop = read(report({json::array({a0, t0}), json::array({a0, t1})}));
  EXPECT_EQ(loop.op, Collective::alltoall);
  EXPECT_EQ(loop.msg_bytes, 65536);
  EXPECT_DOUBLE_EQ(loop.comp_s, 25e-3);  // median of the ranks' medians (two: their mean)
  EXPECT_EQ(loop.site, "MPI_Ialltoall at fft.c:20");
  EXPECT_EQ(loop.waits, 20u);
  EXPECT_EQ(loop.ranks, 2);
  EXPECT_NE(loop.summary.find("--op ialltoall --size 65536 --comp-time 25ms"), std::string::npos)
      << loop.summary;
  EXPECT_NE(loop.summary.find("busiest of 2 sites"), std::string::npos);
}

TEST(ProgramLoop, OpRestrictsTheChoice) {
  const json a = site("MPI_Iallreduce", "cg.c:10", 100, 100 * 1024, window(100, 1e-3, 1e-3));
  const json t = site("MPI_Ialltoall", "fft.c:20", 10, 10 * 65536, window(10, 20e-3, 20e-3));
  const ProgramLoop loop = read(report({json::array({a, t})}), Collective::allreduce);
  EXPECT_EQ(loop.op, Collective::allreduce);
  EXPECT_EQ(loop.msg_bytes, 1024);
  EXPECT_DOUBLE_EQ(loop.comp_s, 1e-3);
}

TEST(ProgramLoop, MedianOverThreeRanksAndMeanBytesPerCall) {
  const ProgramLoop loop = read(report({
      json::array({site("MPI_Ibcast", "a.c:1", 4, 4 * 1000, window(4, 1e-3, 1e-3))}),
      json::array({site("MPI_Ibcast", "a.c:1", 4, 4 * 1000, window(4, 9e-3, 9e-3))}),
      json::array({site("MPI_Ibcast", "a.c:1", 4, 4 * 1000, window(4, 2e-3, 2e-3))}),
  }));
  EXPECT_EQ(loop.op, Collective::bcast);
  EXPECT_EQ(loop.msg_bytes, 1000);
  EXPECT_DOUBLE_EQ(loop.comp_s, 2e-3);
}

TEST(ProgramLoop, BarrierHasNoMessage) {
  const ProgramLoop loop =
      read(report({json::array({site("MPI_Ibarrier", "b.c:3", 5, 0, window(5, 3e-3, 3e-3))})}));
  EXPECT_EQ(loop.op, Collective::barrier);
  EXPECT_FALSE(loop.msg_bytes.has_value());
  EXPECT_EQ(loop.summary.find("--size"), std::string::npos);
}

TEST(ProgramLoop, BlockingSitesAndSitesWithoutCompletionsAreIgnored) {
  json blocking = {{"call", "MPI_Allreduce"}, {"site", {{"text", "x.c:1"}}}, {"calls", 50}};
  const json freed = site("MPI_Iallreduce", "y.c:2", 9, 9 * 64, nullptr);  // never waited
  const json used = site("MPI_Iallreduce", "z.c:3", 3, 3 * 128, window(3, 4e-3, 4e-3));
  const ProgramLoop loop = read(report({json::array({blocking, freed, used})}));
  EXPECT_EQ(loop.site, "MPI_Iallreduce at z.c:3");
  EXPECT_EQ(loop.msg_bytes, 128);
}

TEST(ProgramLoop, RefusesWhatIsNotAReportWithAWaitedCollective) {
  EXPECT_NE(refusal("{not json").find("r.json is not JSON"), std::string::npos);
  EXPECT_NE(refusal(R"({"benchmark": "nbc", "ranks": []})").find("is not a report of overlap-run"),
            std::string::npos);
  EXPECT_NE(refusal(report({}).dump()).find("has no ranks"), std::string::npos);
  // A report of an older overlap-run: no wait windows at all.
  json old = {{"call", "MPI_Iallreduce"}, {"site", {{"text", "a.c:1"}}}, {"calls", 3}};
  EXPECT_NE(refusal(report({json::array({old})}).dump()).find("before wait_window_s"),
            std::string::npos);
  // Windows, but none of the collective asked for.
  const json a = site("MPI_Iallreduce", "a.c:1", 3, 24, window(3, 1e-3, 1e-3));
  const std::string why = refusal(report({json::array({a})}).dump(), Collective::alltoall);
  EXPECT_NE(why.find("has no ialltoall collective"), std::string::npos) << why;
  EXPECT_EQ(why.rfind("--from: r.json", 0), 0u) << why;
}

}  // namespace
}  // namespace overlap::bench
