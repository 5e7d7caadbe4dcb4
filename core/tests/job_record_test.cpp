// jobs.csv / summary.json / run.json writers against hand-computed text.
#include "vnsim/core/job_record.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "vnsim/core/error.hpp"

namespace vnsim {
namespace {

// One file per test name: ctest runs tests as separate, possibly parallel,
// processes.
std::string temp_path(const std::string& file) {
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  const auto dir = std::filesystem::temp_directory_path() /
                   (std::string("vnsim-job-record-") + info->name() + "-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  return (dir / file).string();
}

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

JobRecord completed(std::string id, double submit, double start, double finish, double gpu_seconds) {
  JobRecord r;
  r.id = std::move(id);
  r.submit_s = submit;
  r.start_s = start;
  r.finish_s = finish;
  r.state = FinalState::Completed;
  r.gpu_seconds = gpu_seconds;
  return r;
}

JobRecord rejected(std::string id, double submit, std::string reason) {
  JobRecord r;
  r.id = std::move(id);
  r.submit_s = submit;
  r.state = FinalState::Rejected;
  r.reason = std::move(reason);
  return r;
}

const char* kHeader =
    "job_id,submission_time,requested_number_of_resources,starting_time,finish_time,waiting_time,"
    "execution_time,turnaround_time,stretch,final_state,allocated_resources,reason,restarts,model,"
    "iterations,gpu_seconds,lost_work_s,energy_j,cost_usd,vc,virtual_nodes\n";

TEST(FinalState, PrintsBatsimNames) {
  EXPECT_STREQ(to_string(FinalState::Completed), "COMPLETED");
  EXPECT_STREQ(to_string(FinalState::Rejected), "REJECTED");
}

TEST(JobsCsv, RowsInInputOrderWithDerivedTimes) {
  JobRecord a = completed("a", 0, 10, 110, 400);
  a.requested_gpus = 5;
  a.gpus = {7, 0, 1, 2, 3};  // unsorted on purpose: the writer sorts
  a.model = "resnet50";
  a.iterations = 1000;
  a.vc = "vc1";
  a.virtual_nodes = 10;
  JobRecord c = completed("c", 20, 20, 20.5, 0.5);
  c.requested_gpus = 1;
  c.gpus = {5};
  c.restarts = 2;
  c.model = "m";
  c.iterations = 3;
  JobRecord b = rejected("b", 5, "requests 256 GPUs, cluster has 16");
  b.requested_gpus = 256;
  b.model = "bert";
  b.iterations = 50;

  const std::string path = temp_path("jobs.csv");
  write_jobs_csv(path, {a, c, b});
  EXPECT_EQ(
      slurp(path),
      std::string(kHeader) +
          "a,0.000000,5,10.000000,110.000000,10.000000,100.000000,110.000000,1.100000,COMPLETED,0-3 7,\"\",0,"
          "resnet50,1000,400.000000,0.000000,0.000000,0.000000,vc1,10\n"
          "c,20.000000,1,20.000000,20.500000,0.000000,0.500000,0.500000,1.000000,COMPLETED,5,\"\",2,m,3,"
          "0.500000,0.000000,0.000000,0.000000,,0\n"
          "b,5.000000,256,,,,,,,REJECTED,,\"requests 256 GPUs, cluster has 16\",0,bert,50,0.000000,0.000000,"
          "0.000000,0.000000,,0\n");
}

TEST(JobsCsv, AllocatedResourcesUseIntervalSets) {
  JobRecord r = completed("x", 0, 1, 2, 0);
  r.gpus = {10, 9, 5, 4, 3, 1};
  const std::string path = temp_path("jobs.csv");
  write_jobs_csv(path, {r});
  const std::string text = slurp(path);
  EXPECT_NE(text.find(",COMPLETED,1 3-5 9-10,"), std::string::npos) << text;
}

TEST(JobsCsv, EscapesQuotesCommasAndNewlines) {
  JobRecord r = rejected("job,\"7\"", 0, "bad \"model\"\nsecond line");
  r.model = "a,b";
  r.vc = "v,1";
  const std::string path = temp_path("jobs.csv");
  write_jobs_csv(path, {r});
  EXPECT_EQ(slurp(path),
            std::string(kHeader) +
                "\"job,\"\"7\"\"\",0.000000,0,,,,,,,REJECTED,,\"bad \"\"model\"\"\nsecond line\",0,"
                "\"a,b\",0,0.000000,0.000000,0.000000,0.000000,\"v,1\",0\n");
}

TEST(JobsCsv, NoJobsGivesHeaderOnly) {
  const std::string path = temp_path("jobs.csv");
  write_jobs_csv(path, {});
  EXPECT_EQ(slurp(path), kHeader);
}

TEST(JobsCsv, NonFiniteTimeIsABugNotAValue) {
  JobRecord r = completed("nan", 0, 1, std::numeric_limits<double>::quiet_NaN(), 0);
  EXPECT_THROW(write_jobs_csv(temp_path("jobs.csv"), {r}), std::logic_error);
}

TEST(JobsCsv, UnwritablePathNamesThePath) {
  try {
    write_jobs_csv("/nonexistent-dir/jobs.csv", {});
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("/nonexistent-dir/jobs.csv"), std::string::npos) << e.what();
  }
}

RunInfo sample_info() {
  RunInfo info;
  info.policy = "fifo";
  info.cluster = "testbed";
  info.trace = "synthetic:5";
  info.seed = 42;
  info.total_gpus = 4;
  info.wall_s = 1.25;
  info.peak_rss_mb = 31.5;
  info.scheduler_wall_s = 0.125;
  info.scheduler_calls = 8;
  info.scheduler_active_jobs_mean = 2.5;
  info.scheduler_cpu_s = 0.0625;
  info.scheduler_cpu_measured_calls = 4;
  info.scheduler_unchanged_calls = 3;
  info.scheduler_unchanged_cpu_s = 0.03125;
  info.scheduler_idle_calls = 2;
  info.scheduler_idle_cpu_s = 0.015625;
  info.simgrid_version = "SimGrid 3.32";
  info.vnsim_version = "0.1.0";
  return info;
}

// JCTs 10, 20, 30, 40, 100 and waits 0, 5, 10, 15, 50, listed out of order.
std::vector<JobRecord> five_completed_one_rejected() {
  return {completed("j3", 20, 30, 50, 20), completed("j1", 0, 0, 10, 10),   completed("j5", 40, 90, 140, 50),
          rejected("r", 50, "too big"),    completed("j2", 10, 15, 30, 15), completed("j4", 30, 45, 70, 25)};
}

TEST(SummaryJson, HandComputedStatistics) {
  const std::string path = temp_path("summary.json");
  write_summary_json(path, five_completed_one_rejected(), sample_info());
  // Linear-interpolation percentiles on sorted JCTs {10,20,30,40,100}:
  // p95 at rank 0.95*4 = 3.8 -> 40 + 0.8*60 = 88; p99 at 3.96 -> 97.6.
  // Waits {0,5,10,15,50}: p95 -> 15 + 0.8*35 = 43; p99 -> 48.6.
  // Makespan 140 - 0; utilisation 120 GPU-s / (4 GPUs * 140 s) = 0.2142857.
  EXPECT_EQ(slurp(path), R"({
  "vnsim_version": "0.1.0",
  "simgrid_version": "SimGrid 3.32",
  "run": {
    "policy": "fifo",
    "cluster": "testbed",
    "trace": "synthetic:5",
    "seed": 42,
    "total_gpus": 4
  },
  "counts": {
    "submitted": 6,
    "completed": 5,
    "rejected": 1
  },
  "jct_s": {
    "mean": 40.0,
    "median": 30.0,
    "p95": 88.0,
    "p99": 97.6,
    "max": 100.0
  },
  "wait_s": {
    "mean": 16.0,
    "median": 10.0,
    "p95": 43.0,
    "p99": 48.6
  },
  "makespan_s": 140.0,
  "gpu_seconds": 120.0,
  "gpu_utilisation": 0.214286
}
)");
}

TEST(SummaryJson, MedianOfEvenCountAveragesTheMiddlePair) {
  const std::string path = temp_path("summary.json");
  write_summary_json(path, {completed("a", 0, 0, 1, 0), completed("b", 0, 0, 4, 0)}, sample_info());
  const auto s = nlohmann::json::parse(slurp(path));
  EXPECT_DOUBLE_EQ(s["jct_s"]["median"].get<double>(), 2.5);
  EXPECT_NEAR(s["jct_s"]["p99"].get<double>(), 1 + 0.99 * 3, 1e-9);
}

TEST(SummaryJson, NoCompletedJobsGivesNullStatistics) {
  const std::string path = temp_path("summary.json");
  write_summary_json(path, {rejected("r", 3, "x")}, sample_info());
  const auto s = nlohmann::json::parse(slurp(path));
  EXPECT_EQ(s["counts"]["submitted"], 1);
  EXPECT_EQ(s["counts"]["rejected"], 1);
  EXPECT_TRUE(s["jct_s"]["mean"].is_null());
  EXPECT_TRUE(s["wait_s"]["p99"].is_null());
  EXPECT_TRUE(s["makespan_s"].is_null());
  EXPECT_TRUE(s["gpu_utilisation"].is_null());
}

TEST(SummaryJson, LeavesRunToRunFactsOut) {
  const std::string path = temp_path("summary.json");
  write_summary_json(path, five_completed_one_rejected(), sample_info());
  const std::string first = slurp(path);
  RunInfo other = sample_info();
  other.wall_s = 99;
  other.peak_rss_mb = 999;
  other.scheduler_wall_s = 9;
  other.scheduler_calls = 99;
  other.scheduler_active_jobs_mean = 9.5;
  other.scheduler_cpu_s = 9;
  other.scheduler_cpu_measured_calls = 9;
  other.scheduler_unchanged_calls = 9;
  other.scheduler_unchanged_cpu_s = 9;
  other.scheduler_idle_calls = 9;
  other.scheduler_idle_cpu_s = 9;
  write_summary_json(path, five_completed_one_rejected(), other);
  EXPECT_EQ(slurp(path), first);
  EXPECT_EQ(first.find("wall"), std::string::npos);
  EXPECT_EQ(first.find("rss"), std::string::npos);
}

TEST(SummaryJson, NonFiniteTimeIsABugNotAValue) {
  auto jobs = five_completed_one_rejected();
  jobs[2].finish_s = std::numeric_limits<double>::infinity();
  EXPECT_THROW(write_summary_json(temp_path("summary.json"), jobs, sample_info()), std::logic_error);
}

TEST(RunJson, HoldsWallTimeMemoryAndVersions) {
  const std::string path = temp_path("run.json");
  write_run_json(path, sample_info());
  EXPECT_EQ(slurp(path), R"({
  "vnsim_version": "0.1.0",
  "simgrid_version": "SimGrid 3.32",
  "policy": "fifo",
  "cluster": "testbed",
  "trace": "synthetic:5",
  "seed": 42,
  "total_gpus": 4,
  "wall_s": 1.25,
  "scheduler_wall_s": 0.125,
  "scheduler_cpu_s": 0.0625,
  "scheduler_cpu_measured_calls": 4,
  "scheduler_calls": 8,
  "scheduler_active_jobs_mean": 2.5,
  "scheduler_unchanged_calls": 3,
  "scheduler_unchanged_cpu_s": 0.03125,
  "scheduler_idle_calls": 2,
  "scheduler_idle_cpu_s": 0.015625,
  "peak_rss_mb": 31.5
}
)");
}

}  // namespace
}  // namespace vnsim
