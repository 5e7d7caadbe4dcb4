// pai-2020 reader: job, task and instance tables joined, by hand.
#include <gtest/gtest.h>

#include <filesystem>

#include "crlf_copy.hpp"
#include "trace_test_support.hpp"
#include "vnsim/core/error.hpp"
#include "vnsim/traces/readers.hpp"

namespace vnsim {
namespace {

using testing::trace_data;
namespace fs = std::filesystem;

struct Expected {
  std::string id;
  double submit, duration;
  int gpus;
  std::optional<std::string> gpu_type;
  TraceStatus status;
};

void expect_jobs(const TraceReadResult& r, const std::vector<Expected>& expected) {
  EXPECT_EQ(r.format, "pai-2020");
  ASSERT_EQ(r.jobs.size(), expected.size());
  for (std::size_t i = 0; i < expected.size(); ++i) {
    EXPECT_EQ(r.jobs[i].id, expected[i].id);
    EXPECT_DOUBLE_EQ(r.jobs[i].submit_s, expected[i].submit) << expected[i].id;
    EXPECT_DOUBLE_EQ(r.jobs[i].trace_duration_s, expected[i].duration) << expected[i].id;
    EXPECT_EQ(r.jobs[i].gpus, expected[i].gpus) << expected[i].id;
    EXPECT_EQ(r.jobs[i].gpu_type, expected[i].gpu_type) << expected[i].id;
    EXPECT_EQ(r.jobs[i].status, expected[i].status) << expected[i].id;
  }
}

void expect_issues(const TraceReadResult& r, const std::vector<std::string>& expected) {
  ASSERT_EQ(r.skipped.size(), expected.size());
  for (std::size_t i = 0; i < expected.size(); ++i) EXPECT_EQ(r.skipped[i].message(), expected[i]);
}

// Submit = job start_time - 1000 (j1 and j11); GPUs = ceil(sum of inst_num x
// plan_gpu / 100): j1 2 x 50 % = 1, j11 3 x 50 % = 1.5 -> 2, j10 3 x 33.3333 %
// -> 1; duration from instance rows when the job has any, else task rows.
void expect_small_pai(const TraceReadResult& r, const std::string& dir) {
  expect_jobs(r, {{"j1", 0, 1890 - 1020, 1, "T4", TraceStatus::Pass},
                  {"j11", 0, 100, 2, std::nullopt, TraceStatus::Pass},
                  {"j10", 600, 80, 1, "V100", TraceStatus::Failed}});
  EXPECT_EQ(r.jobs[0].user, "u1");
  const std::string jobs = dir + "/pai_job_table.csv", tasks = dir + "/pai_task_table.csv",
                    inst = dir + "/pai_instance_table.csv";
  expect_issues(r,
                {inst + ":6: start_time 'x' is not a number", jobs + ":2: its row " + inst + ":6 is unusable",
                 jobs + ":3: job never started (status Waiting)",
                 jobs + ":4: tasks ask for different GPU types (P100, T4)",
                 jobs + ":5: CPU-only job (no task plans a GPU)",
                 jobs + ":6: no start and end time in its task or instance rows (never ran?)",
                 jobs + ":7: start_time (submission) 'abc' is not a number",
                 tasks + ":8: rows of job 'j8', which is not in pai_job_table",
                 inst + ":5: rows of job 'j9', which is not in pai_job_table"});
}

TEST(Pai2020Reader, JoinsThreeTablesFromAFolder) {
  const std::string dir = trace_data("pai_small");
  expect_small_pai(read_trace(dir, "", BadRowPolicy::Skip), dir);
}

TEST(Pai2020Reader, JobTablePathFindsTheOthersBesideIt) {
  const std::string dir = trace_data("pai_small");
  EXPECT_EQ(detect_trace_format(dir + "/pai_job_table.csv"), "pai-2020");
  expect_small_pai(read_trace(dir + "/pai_job_table.csv", "", BadRowPolicy::Skip), dir);
}

TEST(Pai2020Reader, CrlfGivesTheSameResult) {
  std::string dir;
  for (const char* table : {"pai_job_table.csv", "pai_task_table.csv", "pai_instance_table.csv"})
    dir = fs::path(testing::crlf_copy(trace_data("pai_small") + "/" + table, "pai_crlf"))
              .parent_path()
              .string();
  expect_small_pai(read_trace(dir, "pai-2020", BadRowPolicy::Skip), dir);
}

TEST(Pai2020Reader, WithoutInstanceTableUsesTaskTimes) {
  const auto dir = fs::path(::testing::TempDir()) / "pai_no_instances";
  fs::create_directories(dir);
  for (const char* table : {"pai_job_table.csv", "pai_task_table.csv"})
    fs::copy_file(trace_data("pai_small") + "/" + table, dir / table, fs::copy_options::overwrite_existing);
  const auto r = read_trace(dir.string(), "", BadRowPolicy::Skip);
  // j1 tasks run 1005 -> 1950; j2 (no longer tainted) 1150 -> 1400 on 25 %
  // of a V100M32, i.e. 1 V100.
  expect_jobs(r, {{"j1", 0, 945, 1, "T4", TraceStatus::Pass},
                  {"j11", 0, 100, 2, std::nullopt, TraceStatus::Pass},
                  {"j2", 100, 250, 1, "V100", TraceStatus::Failed},
                  {"j10", 600, 80, 1, "V100", TraceStatus::Failed}});
  EXPECT_EQ(r.skipped.size(), 6u);
  // Only a plan below one GPU keeps its share: j2's 25 %; j10's 3 x
  // 33.3333 % is one whole GPU, j11's 1.5 rounds up to 2 whole GPUs.
  EXPECT_EQ(r.jobs[2].gpu_milli, 250);
  EXPECT_EQ(r.jobs[0].gpu_milli, 0);
  EXPECT_EQ(r.jobs[1].gpu_milli, 0);
  EXPECT_EQ(r.jobs[3].gpu_milli, 0);
}

TEST(Pai2020Reader, MissingTaskTableIsAnError) {
  const auto dir = fs::path(::testing::TempDir()) / "pai_jobs_only";
  fs::create_directories(dir);
  fs::copy_file(trace_data("pai_small") + "/pai_job_table.csv", dir / "pai_job_table.csv",
                fs::copy_options::overwrite_existing);
  EXPECT_THROW(read_trace(dir.string(), "", BadRowPolicy::Skip), InputError);
}

}  // namespace
}  // namespace vnsim
