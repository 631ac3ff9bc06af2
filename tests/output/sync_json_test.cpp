#include "output/sync_json.hpp"
#include "output/result_json.hpp"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>

namespace overlap::output {
namespace {

namespace fs = std::filesystem;

bench::RunContext sample_context() {
  bench::RunContext ctx;
  ctx.mpi_library = "Open MPI v4.1.4, package: Debian";
  ctx.mpi_flavor = "openmpi";
  ctx.mpi_version = 3;
  ctx.mpi_subversion = 1;
  ctx.size = 3;
  ctx.hosts = {"node-a", "node-a", "node-b"};
  ctx.clock_source = "monotonic_raw";
  ctx.command_line = "overlap-bench sync --passes 4";
  ctx.started_at = "2024-06-11T10:00:00Z";
  return ctx;
}

// Values chosen distinct per field, so a swapped field shows.
bench::SyncRecord sample_record() {
  bench::SyncRecord rec;
  rec.config.estimator.patience = 77;
  rec.config.passes = 6;
  rec.config.span_s = 8.5;
  rec.config.verify_after_s = 12.0;
  rec.config.barrier_iterations = 150;
  rec.config.model_scheme = clock::SyncScheme::linear;
  rec.verify_elapsed_s = 12.25;
  rec.ranks = {{0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0},
               {1, 2.5, 50.0, 3.1e-6, 6.2e-3, 1.1e-7, 2.2e-7},
               {2, -0.75, -12.5, 4.2e-6, -1.5e-3, -3.3e-7, 4.4e-7}};
  rec.log = {"log", 1.5e-3, 2, 900};
  rec.linear = {"linear", 2.5e-3, 3, 1200};
  rec.barrier_skew_s = 2.0e-6;
  rec.mpi_barrier_skew_s = 35.0e-6;
  rec.barrier_late_iterations = 4;
  rec.barrier_final_window_s = 2.0e-4;
  return rec;
}

TEST(SyncJson, HasSchemaVersionAndMetadata) {
  const auto doc = sync_to_json(sample_context(), sample_record());
  EXPECT_EQ(doc.at("schema_version"), kSyncSchemaVersion);
  EXPECT_EQ(doc.at("benchmark"), "sync");
  const auto& meta = doc.at("metadata");
  EXPECT_EQ(meta.at("mpi_library"), "Open MPI v4.1.4, package: Debian");
  EXPECT_EQ(meta.at("mpi_flavor"), "openmpi");
  EXPECT_EQ(meta.at("mpi_standard"), "3.1");
  EXPECT_EQ(meta.at("processes"), 3);
  EXPECT_EQ(meta.at("hosts"), (nlohmann::json{"node-a", "node-a", "node-b"}));
  EXPECT_EQ(meta.at("clock_source"), "monotonic_raw");
  EXPECT_EQ(meta.at("command_line"), "overlap-bench sync --passes 4");
  EXPECT_EQ(meta.at("started_at"), "2024-06-11T10:00:00Z");
  EXPECT_EQ(context_to_json(sample_context()), meta);
}

TEST(SyncJson, PerRankFieldsCarryTheRecordAndTheHost) {
  const auto doc = sync_to_json(sample_context(), sample_record());
  const auto& ranks = doc.at("ranks");
  ASSERT_TRUE(ranks.is_array());
  ASSERT_EQ(ranks.size(), 3u);
  const auto& r2 = ranks.at(2);
  EXPECT_EQ(r2.at("rank"), 2);
  EXPECT_EQ(r2.at("host"), "node-b");
  EXPECT_EQ(r2.at("offset_s"), -0.75);
  EXPECT_EQ(r2.at("drift_ppm"), -12.5);
  EXPECT_EQ(r2.at("rtt_min_s"), 4.2e-6);
  EXPECT_EQ(r2.at("residual_offset_only_s"), -1.5e-3);
  EXPECT_EQ(r2.at("residual_drift_s"), -3.3e-7);
  EXPECT_EQ(r2.at("residual_drift_other_scheme_s"), 4.4e-7);
  const auto& r1 = ranks.at(1);
  EXPECT_EQ(r1.at("host"), "node-a");
  EXPECT_EQ(r1.at("offset_s"), 2.5);
  EXPECT_EQ(r1.at("drift_ppm"), 50.0);
  for (const auto& r : ranks) {
    for (const char* key : {"rank", "host", "offset_s", "drift_ppm", "rtt_min_s",
                            "residual_offset_only_s", "residual_drift_s"}) {
      EXPECT_TRUE(r.contains(key)) << key;
    }
  }
}

TEST(SyncJson, SchemeCostsAndBarrierSkewAtTopLevel) {
  const auto doc = sync_to_json(sample_context(), sample_record());
  EXPECT_EQ(doc.at("sync_time_log_s"), 1.5e-3);
  EXPECT_EQ(doc.at("sync_time_linear_s"), 2.5e-3);
  EXPECT_EQ(doc.at("steps_log"), 2);
  EXPECT_EQ(doc.at("steps_linear"), 3);
  EXPECT_EQ(doc.at("exchanges_log"), 900);
  EXPECT_EQ(doc.at("exchanges_linear"), 1200);
  EXPECT_EQ(doc.at("barrier_skew_s"), 2.0e-6);
  EXPECT_EQ(doc.at("mpi_barrier_skew_s"), 35.0e-6);
  EXPECT_EQ(doc.at("barrier_late_iterations"), 4);
  EXPECT_EQ(doc.at("barrier_final_window_s"), 2.0e-4);
  EXPECT_EQ(doc.at("verify_elapsed_s"), 12.25);
  EXPECT_EQ(doc.at("trivial"), false);
}

TEST(SyncJson, ConfigIsRecorded) {
  const auto doc = sync_to_json(sample_context(), sample_record());
  const auto& cfg = doc.at("config");
  EXPECT_EQ(cfg.at("patience"), 77);
  EXPECT_EQ(cfg.at("passes"), 6);
  EXPECT_EQ(cfg.at("span_s"), 8.5);
  EXPECT_EQ(cfg.at("verify_after_s"), 12.0);
  EXPECT_EQ(cfg.at("barrier_iterations"), 150);
  EXPECT_EQ(cfg.at("model_scheme"), "linear");
}

TEST(SyncJson, HostOfAnUnknownRankThrows) {
  bench::RunContext ctx = sample_context();
  ctx.hosts.pop_back();  // rank 2 has no host
  EXPECT_THROW(sync_to_json(ctx, sample_record()), std::out_of_range);
}

// A fresh directory under the system temp dir, removed at the end of the test.
class TempDir {
 public:
  TempDir() {
    std::string tmpl = (fs::temp_directory_path() / "overlap-json-XXXXXX").string();
    if (mkdtemp(tmpl.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
    path_ = tmpl;
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

TEST(WriteJsonFile, RoundTripsThroughAFile) {
  const TempDir dir;
  const std::string path = (dir.path() / "sync.json").string();
  const auto doc = sync_to_json(sample_context(), sample_record());
  write_json_file(path, doc);

  std::ifstream in(path);
  ASSERT_TRUE(in) << path;
  EXPECT_EQ(nlohmann::json::parse(in), doc);
  EXPECT_FALSE(fs::exists(path + ".tmp")) << "the temporary file is renamed, not left behind";
}

TEST(WriteJsonFile, ReplacesAnExistingFile) {
  const TempDir dir;
  const std::string path = (dir.path() / "sync.json").string();
  write_json_file(path, nlohmann::json{{"old", true}});
  const auto doc = sync_to_json(sample_context(), sample_record());
  write_json_file(path, doc);
  std::ifstream in(path);
  EXPECT_EQ(nlohmann::json::parse(in), doc);
}

TEST(WriteJsonFile, MissingDirectoryThrowsNamingThePath) {
  const TempDir dir;
  const std::string path = (dir.path() / "no-such-dir" / "sync.json").string();
  try {
    write_json_file(path, nlohmann::json{{"a", 1}});
    FAIL() << "no exception for " << path;
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
  }
  EXPECT_FALSE(fs::exists(dir.path() / "no-such-dir"));
}

}  // namespace
}  // namespace overlap::output
