#include "output/nbc_json.hpp"

#include <gtest/gtest.h>

#include "base/usage_error.hpp"
#include "output/nbc_csv.hpp"

namespace overlap::output {
namespace {

bench::NbcPointRecord valid_point() {
  bench::NbcPointRecord p;
  p.key = {bench::NbcImpl::overlap, bench::NbcOp::iallreduce, 0.004, 0.016};
  p.valid = true;
  p.msg_bytes = 1 << 20;
  p.comp_size = 512;
  p.iterations = 15;
  p.times = {0.0041, 0.0159, 0.0199, 0.0001, 0.0160, 0.0039};
  p.t_measured_p25_s = 0.0195;
  p.t_measured_p75_s = 0.0203;
  p.r_overhead = measure::r_overhead(p.times);
  p.r_comm = measure::r_comm(p.times);
  p.r_comp_slowdown = measure::r_comp_slowdown(p.times);
  p.osu_overlap_pct = 3.5;
  p.imb_overlap_pct = 1.0 / 3.0;
  p.diagnosis = measure::diagnose(p.times);
  p.calibration_s = 1.25;
  p.elapsed_s = 2.5;
  return p;
}

bench::NbcPointRecord invalid_point() {
  bench::NbcPointRecord p;
  p.key = {bench::NbcImpl::mpi, bench::NbcOp::ibarrier, 0.001, 0.002};
  p.invalid_reason = "ibarrier has no size to calibrate: it takes 5 us, not within 10 % of 1 ms";
  p.times.t_comm_ref = 123;  // must not leak: invalid points carry no numbers
  p.r_overhead = 0.5;
  return p;
}

void expect_same(const bench::NbcPointRecord& a, const bench::NbcPointRecord& b) {
  EXPECT_TRUE(a.key.same_as(b.key));
  EXPECT_EQ(a.valid, b.valid);
  EXPECT_EQ(a.invalid_reason, b.invalid_reason);
  EXPECT_EQ(a.msg_bytes, b.msg_bytes);
  EXPECT_EQ(a.comp_size, b.comp_size);
  EXPECT_EQ(a.iterations, b.iterations);
  EXPECT_EQ(a.times.t_measured, b.times.t_measured);
  EXPECT_EQ(a.times.t_wait, b.times.t_wait);
  EXPECT_EQ(a.r_overhead, b.r_overhead);
  EXPECT_EQ(a.imb_overlap_pct, b.imb_overlap_pct);
  EXPECT_EQ(a.diagnosis, b.diagnosis);
  EXPECT_EQ(a.elapsed_s, b.elapsed_s);
}

TEST(NbcJson, ImplIsKeptAndOldFilesMeanMpi) {
  auto j = nbc_point_to_json(valid_point());
  EXPECT_EQ(j.at("impl"), "overlap");
  EXPECT_EQ(nbc_point_from_json(j).key.impl, bench::NbcImpl::overlap);
  j.erase("impl");  // written before liboverlap existed
  EXPECT_EQ(nbc_point_from_json(j).key.impl, bench::NbcImpl::mpi);
  j["impl"] = "ompi";
  EXPECT_THROW(nbc_point_from_json(j), UsageError);
  // Same op and targets, other implementation: a different grid point.
  auto other = valid_point();
  other.key.impl = bench::NbcImpl::mpi;
  EXPECT_FALSE(other.key.same_as(valid_point().key));
}

TEST(NbcJson, ValidPointRoundTripsExactly) {
  const auto p = valid_point();
  const auto text = nbc_point_to_json(p).dump();
  const auto back = nbc_point_from_json(nlohmann::json::parse(text));
  expect_same(p, back);
  EXPECT_EQ(nbc_point_to_json(back), nbc_point_to_json(p));
}

TEST(NbcJson, InvalidPointHasNullNumbersAndItsReason) {
  const auto j = nbc_point_to_json(invalid_point());
  EXPECT_FALSE(j["valid"].get<bool>());
  EXPECT_EQ(j["diagnosis"], "invalid");
  for (const char* key : {"t_comm_ref_s", "t_measured_s", "r_overhead", "r_comm", "msg_bytes",
                          "osu_overlap_pct", "imb_overlap_pct"}) {
    EXPECT_TRUE(j[key].is_null()) << key;
  }
  EXPECT_NE(j["diagnosis_text"].get<std::string>().find("no size"), std::string::npos);
  const auto back = nbc_point_from_json(j);
  EXPECT_FALSE(back.valid);
  EXPECT_FALSE(back.r_overhead);
  EXPECT_EQ(back.invalid_reason, invalid_point().invalid_reason);
}

TEST(NbcJson, DocumentCarriesSchemaMetadataAndCompleteness) {
  bench::RunContext ctx;
  ctx.mpi_library = "Open MPI v4.1.4";
  ctx.size = 2;
  ctx.hosts = {"n0", "n1"};
  ctx.label = "openmpi";
  ctx.thread_level = "MPI_THREAD_MULTIPLE";
  ctx.threads = 3;
  ctx.environment = {{"MPICH_ASYNC_PROGRESS", "1"}};
  bench::NbcConfig config;
  config.ops = {bench::NbcOp::ibcast};
  config.comm_times_s = {0.001};
  config.comp_times_s = {0.002, 0.004};
  NbcRunSummary summary;
  summary.sync.passes = 7;
  const auto doc = nbc_to_json(ctx, config, {valid_point(), invalid_point()}, summary);
  EXPECT_EQ(doc["schema_version"], kNbcSchemaVersion);
  EXPECT_EQ(doc["benchmark"], "nbc");
  EXPECT_FALSE(doc["complete"].get<bool>());
  EXPECT_EQ(doc["metadata"]["threads"], 3);
  EXPECT_EQ(doc["metadata"]["environment"]["MPICH_ASYNC_PROGRESS"], "1");
  EXPECT_EQ(doc["metadata"]["clock_sync"]["passes"], 7);
  EXPECT_EQ(doc["config"]["ops"], nlohmann::json::array({"ibcast"}));
  EXPECT_EQ(doc["points"].size(), 2u);
}

TEST(NbcCsv, OneRowPerPointSameColumnsAsJson) {
  const std::string csv = nbc_csv({valid_point(), invalid_point()});
  std::vector<std::string> lines;
  std::size_t start = 0;
  for (std::size_t end; (end = csv.find('\n', start)) != std::string::npos; start = end + 1) {
    lines.push_back(csv.substr(start, end - start));
  }
  ASSERT_EQ(lines.size(), 3u);
  const auto keys = nbc_point_to_json(valid_point());
  EXPECT_EQ(static_cast<std::size_t>(std::count(lines[0].begin(), lines[0].end(), ',')) + 1,
            keys.size());
  EXPECT_NE(lines[0].find("r_overhead"), std::string::npos);
  EXPECT_NE(lines[1].find("iallreduce"), std::string::npos);
  // The invalid row: reason quoted (it has a comma), no numbers for times.
  EXPECT_NE(lines[2].find("\"ibarrier has no size to calibrate: it takes 5 us, not within 10 % "
                          "of 1 ms\""),
            std::string::npos);
  EXPECT_EQ(lines[2].find("123"), std::string::npos);
}

}  // namespace
}  // namespace overlap::output
