#include "output/result_file.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <sstream>

#include "bench/advise/advice_rule.hpp"
#include "bench/nbc/impact_record.hpp"
#include "bench/nbc/latency_record.hpp"
#include "bench/nbc/nbc_record.hpp"
#include "bench/sync/sync_record.hpp"
#include "output/console_table.hpp"

namespace overlap::output {
namespace {

namespace fs = std::filesystem;

bench::RunContext sample_context() {
  bench::RunContext ctx;
  ctx.mpi_library = "Open MPI v4.1.4, package: Debian";
  ctx.mpi_flavor = "openmpi";
  ctx.mpi_standard = "3.1";
  ctx.size = 2;
  ctx.hosts = {"node-a", "node-b"};
  ctx.clock_source = "monotonic";
  ctx.command_line = "overlap-bench nbc";
  ctx.started_at = "2024-06-11T10:00:00Z";
  ctx.label = "openmpi";
  ctx.environment = {{"MPICH_ASYNC_PROGRESS", "1"}};
  ctx.thread_level = "MPI_THREAD_MULTIPLE";
  ctx.threads = 2;
  ctx.thread_pus = {"0", "1"};
  ctx.clock_sync = bench::ClockSyncQuality{3, 1e-5, 2, 2e-4};
  return ctx;
}

bench::NbcPoint valid_nbc() {
  bench::NbcPoint p;
  p.impl = bench::Implementation::overlap;
  p.op = bench::Collective::allreduce;
  p.target_comm_s = 0.004;
  p.target_comp_s = 0.016;
  p.valid = true;
  p.msg_bytes = 1 << 20;
  p.comp_size = 512;
  p.iterations = 14;
  p.discarded = 1;
  p.t_comm_ref = measure::Spread{0.0041, 0.0040, 0.0043};
  p.t_measured = measure::Spread{0.0199, 0.0195, 0.0203};
  p.r_overhead = measure::Spread{1.0 / 3.0, 0.2, 0.4};
  p.osu_overlap_pct = 3.5;
  p.diagnosis = measure::Diagnosis::partial_overlap;
  p.diagnosis_text = "text, with a comma";
  p.samples = bench::NbcSamples{{0.004}, {0.016}, {0.0199}, {0.0001}, {0.016}, {0.0038}, {1}};
  p.calibration_s = 1.25;
  p.elapsed_s = 2.5;
  return p;
}

bench::NbcPoint invalid_nbc() {
  bench::NbcPoint p;
  p.op = bench::Collective::barrier;
  p.target_comm_s = 0.001;
  p.target_comp_s = 0.002;
  p.invalid_reason = "ibarrier has no size to calibrate";
  return p;
}

fs::path temp_file(const char* name) {
  const auto dir = fs::temp_directory_path() / ("overlap-result-test-" + std::to_string(getpid()));
  fs::create_directories(dir);
  return dir / name;
}

template <class C, class P>
void expect_round_trip(const bench::ResultKind<C, P>& kind, const C& config,
                       const std::vector<P>& points) {
  const nlohmann::json doc =
      result_document(kind, sample_context(), config, points, false, RunTiming{12.5, 3.0});
  const fs::path path = temp_file("result.json");
  write_json_file(path.string(), doc);
  const ResultFile<C, P> back = read_result(kind, path.string());
  EXPECT_EQ(
      result_document(kind, back.metadata, back.config, back.points, back.complete, back.timing),
      doc);
  EXPECT_EQ(doc.at("schema_version"), kind.schema_version);
  EXPECT_EQ(doc.at("benchmark"), std::string(kind.benchmark));
  EXPECT_EQ(doc.at("schema").at("points").size(), kind.point().docs().size());
  fs::remove_all(path.parent_path());
}

TEST(ResultFile, EveryKindRoundTripsThroughItsSchema) {
  bench::NbcConfig nbc;
  nbc.ops = {bench::Collective::bcast};
  nbc.comm_times_s = {0.001, 0.002};
  nbc.comp_times_s = {0.004};
  nbc.test_interval_bytes = 65536;
  expect_round_trip(bench::kNbcResult, nbc, {valid_nbc(), invalid_nbc()});

  bench::SyncRecord sync;
  sync.ranks = {{0, "a", 0, 0, 0, 0, 0, 0}, {1, "b", 2.5, 50.0, 3e-6, 6e-3, 1e-7, 2e-7}};
  sync.barrier_skew_s = 2e-6;
  expect_round_trip(bench::kSyncResult, bench::SyncConfig{}, {sync});

  bench::ImpactPoint impact;
  impact.target_comp_s = 0.064;
  impact.valid = true;
  impact.r_mpi_impact_max = 1.27;
  impact.ranks = {{0, "a", 812, 0.064, 0.081, 1.27}};
  bench::ImpactConfig ic;
  ic.progress = bench::ProgressPolicy::shared;
  expect_round_trip(bench::kImpactResult, ic, {impact});

  bench::LatencyPoint lat;
  lat.op = bench::Collective::alltoall;
  lat.valid = true;
  lat.latency = measure::Spread{1e-3, 0.9e-3, 1.1e-3};
  expect_round_trip(bench::kLatencyResult, bench::LatencyConfig{}, {lat});

  // advise: a measured set-up with its nbc section, a skipped one, the advice.
  bench::AdvisePoint shared;
  shared.setup = bench::AdviseSetup::shared;
  shared.status = bench::AdviseStatus::measured;
  shared.threads = 2;
  shared.free_cores = 0;
  shared.progress = "shared";
  shared.msg_bytes = 1 << 20;
  shared.work_ratio = 1.0;
  shared.t_iter = measure::Spread{0.005, 0.0049, 0.0052};
  shared.loop_blocks_s = {0.0049, 0.005, 0.0052};
  shared.loop_starts_s = {0.0, 0.31, 0.62};
  shared.comp_cost = 1.0;
  shared.nbc = valid_nbc();
  bench::AdvisePoint skipped;
  skipped.setup = bench::AdviseSetup::mpi_async;
  skipped.reason = "run advise again with MPICH_ASYNC_PROGRESS=1";
  bench::AdviseConfig ac;
  ac.sizes_bytes = {4096, 1 << 20};
  ac.target_comps_s = {0.002, 0.008};
  shared.cell_bytes = 1 << 20;
  shared.cell_comp_s = 0.008;
  skipped.cell_bytes = 1 << 20;
  skipped.cell_comp_s = 0.008;
  ac.setups = {bench::AdviseSetup::shared, bench::AdviseSetup::mpi_async};
  expect_round_trip(bench::kAdviseResult, ac,
                    {shared, skipped, bench::advise({shared, skipped}, ac.margin)});
}

TEST(ResultFile, InvalidPointsCarryNoNumbers) {
  const nlohmann::json j = bench::nbc_point_schema().to_json(invalid_nbc());
  for (const char* key : {"t_comm_ref_s", "t_measured_p25_s", "r_overhead", "r_comm_p75",
                          "osu_overlap_pct", "msg_bytes", "samples"}) {
    EXPECT_TRUE(j.at(key).is_null()) << key;
  }
  EXPECT_EQ(j.at("diagnosis"), "invalid");
}

TEST(ResultFile, MalformedFilesNameTheFileAndTheField) {
  const fs::path path = temp_file("bad.json");
  nlohmann::json doc =
      result_document(bench::kNbcResult, sample_context(), bench::NbcConfig{},
                      std::vector<bench::NbcPoint>{valid_nbc()}, true, RunTiming{1, 0.0});
  doc["points"][0]["diagnosis"] = "overlapish";
  write_json_file(path.string(), doc);
  try {
    read_result(bench::kNbcResult, path.string());
    FAIL() << "accepted an unknown diagnosis";
  } catch (const UsageError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find(path.string()), std::string::npos) << m;
    EXPECT_NE(m.find("point 0"), std::string::npos) << m;
    EXPECT_NE(m.find("overlapish"), std::string::npos) << m;
  }
  doc["schema_version"] = 1;
  write_json_file(path.string(), doc);
  EXPECT_THROW(read_result(bench::kNbcResult, path.string()), UsageError);
  fs::remove_all(path.parent_path());
}

TEST(ResultFile, CsvHasTheFlatFieldsOfTheJsonPoints) {
  const std::string csv = points_csv(bench::kNbcResult, std::vector<bench::NbcPoint>{valid_nbc()});
  const std::string header = csv.substr(0, csv.find('\n'));
  EXPECT_NE(header.find("t_measured_p25_s"), std::string::npos);
  EXPECT_NE(header.find("diagnosis_text"), std::string::npos);
  EXPECT_EQ(header.find("samples"), std::string::npos);  // a section stays in the JSON
  EXPECT_NE(csv.find("\"text, with a comma\""), std::string::npos);
  EXPECT_NE(csv.find("0.0199"), std::string::npos);
}

TEST(ResultFile, ConsoleRowsFormatByUnitAndInvalidRowsShowTheReason) {
  const ConsoleTable table = console_table(bench::kNbcResult);
  std::ostringstream out;
  print_row(out, table, bench::nbc_point_schema().to_json(valid_nbc()));
  print_row(out, table, bench::nbc_point_schema().to_json(invalid_nbc()));
  const std::string text = out.str();
  EXPECT_NE(text.find("iallreduce"), std::string::npos) << text;
  EXPECT_NE(text.find("1 MiB"), std::string::npos) << text;
  EXPECT_NE(text.find("19.9 ms"), std::string::npos) << text;
  EXPECT_NE(text.find("0.33"), std::string::npos) << text;
  EXPECT_NE(text.find("partial_overlap"), std::string::npos) << text;
  EXPECT_NE(text.find("invalid: ibarrier has no size"), std::string::npos) << text;
}

}  // namespace
}  // namespace overlap::output
