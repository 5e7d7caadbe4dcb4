// Filtered rows (a documented rule) are reported apart from corrupt ones, and
// damaged files fail loudly (docs/TRACES.md, "Bad rows"; issue 18).
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include "trace_test_support.hpp"
#include "vnsim/core/error.hpp"
#include "vnsim/traces/readers.hpp"

namespace vnsim {
namespace {

using testing::trace_data;

std::string write_temp(const std::string& name, const std::string& text) {
  const auto path = std::filesystem::temp_directory_path() / (std::to_string(::getpid()) + "-" + name);
  std::ofstream(path, std::ios::binary) << text;
  return path.string();
}

TEST(BadRowKinds, CpuOnlyAndNeverScheduledPodsAreFilteredTheOthersCorrupt) {
  const auto r = read_trace(trace_data("openb_small.csv"), "", BadRowPolicy::Skip);
  ASSERT_EQ(r.skipped.size(), 4u);
  EXPECT_EQ(r.skipped[0].reason, "CPU-only pod (num_gpu 0)");
  EXPECT_EQ(r.skipped[0].kind, IssueKind::Filtered);
  EXPECT_EQ(r.skipped[1].reason, "pod never scheduled (scheduled_time is empty)");
  EXPECT_EQ(r.skipped[1].kind, IssueKind::Filtered);
  EXPECT_EQ(r.skipped[2].kind, IssueKind::Corrupt);  // gpu_milli 1200
  EXPECT_EQ(r.skipped[3].kind, IssueKind::Corrupt);  // deletion before scheduling
  EXPECT_STREQ(to_string(IssueKind::Filtered), "filtered");
}

TEST(BadRowKinds, FailStopsOnCorruptRowsOnly) {
  const std::string path = write_temp(
      "kinds.jsonl", R"({"id":"a","submit_s":0,"gpus":1,"model":"no-such-model","trace_duration_s":60})"
                     "\n"
                     R"({"id":"b","submit_s":5,"gpus":1,"trace_duration_s":60})"
                     "\n");
  const auto r = read_trace(path, "", BadRowPolicy::Fail);  // the unknown model is filtered, not fatal
  ASSERT_EQ(r.jobs.size(), 1u);
  ASSERT_EQ(r.skipped.size(), 1u);
  EXPECT_EQ(r.skipped[0].kind, IssueKind::Filtered);
  std::ofstream(path, std::ios::app) << "{\"id\":\n";
  EXPECT_THROW(read_trace(path, "", BadRowPolicy::Fail), InputError);
  std::filesystem::remove(path);
}

TEST(BadRowKinds, AnUnterminatedLastCsvRowIsABadRow) {
  // The last row is cut inside its duration: 4708.0 became 47 and nothing
  // else in the row shows it.
  const std::string path = write_temp("cut.csv",
                                      "timestamp,duration,num_gpus,gpu_time,cluster\n"
                                      "2017-10-02 00:01:55,108.0,1,108.0,a\n"
                                      "2017-10-02 00:11:55,47");
  auto r = read_trace(path, "", BadRowPolicy::Skip);
  EXPECT_EQ(r.jobs.size(), 1u);
  ASSERT_EQ(r.skipped.size(), 1u);
  EXPECT_EQ(r.skipped[0].line, 3);
  EXPECT_NE(r.skipped[0].reason.find("no final newline"), std::string::npos);
  std::ofstream(path, std::ios::app) << ",1,47,a\n";  // completed: now a good row
  r = read_trace(path, "", BadRowPolicy::Fail);
  EXPECT_EQ(r.jobs.size(), 2u);
  std::filesystem::remove(path);
}

TEST(BadRowKinds, AGavelFileWithABadFirstRowKeepsItsOtherRows) {
  const std::string path =
      write_temp("first.trace", "garbage\tx\nResNet-50 (batch size 64)\tcmd\t\t0\t1000\t0\t1\n");
  const auto r = read_trace(path, "gavel", BadRowPolicy::Skip);
  EXPECT_EQ(r.jobs.size(), 1u);
  ASSERT_EQ(r.skipped.size(), 1u);
  EXPECT_EQ(r.skipped[0].line, 1);
  EXPECT_THROW(read_trace(path, "gavel", BadRowPolicy::Fail), InputError);
  std::filesystem::remove(path);
}

TEST(BadRowKinds, ADurationOverTenYearsIsABadRow) {
  const std::string path =
      write_temp("long.jsonl", R"({"id":"a","submit_s":0,"gpus":1,"trace_duration_s":1e300})"
                               "\n"
                               R"({"id":"b","submit_s":0,"gpus":1,"trace_duration_s":3.1e8})"
                               "\n");
  const auto r = read_trace(path, "", BadRowPolicy::Skip);
  ASSERT_EQ(r.skipped.size(), 1u);
  EXPECT_EQ(r.skipped[0].line, 1);
  EXPECT_EQ(r.skipped[0].kind, IssueKind::Corrupt);
  EXPECT_EQ(r.jobs.size(), 1u);  // 3.1e8 s is 9.8 years: long, but kept
  std::filesystem::remove(path);
}

TEST(BadRowKinds, AnUnterminatedLastRowOfAPaiTableIsABadRow) {
  const auto dir = std::filesystem::temp_directory_path() / (std::to_string(::getpid()) + "-pai_cut");
  std::filesystem::create_directories(dir);
  for (const char* table : {"pai_job_table.csv", "pai_task_table.csv", "pai_instance_table.csv"})
    std::filesystem::copy_file(trace_data("pai_small") + "/" + table, dir / table,
                               std::filesystem::copy_options::overwrite_existing);
  const auto before = read_trace(dir.string(), "", BadRowPolicy::Skip);
  // Cut the job table's last row (j11) inside its end time.
  const std::string jobs = (dir / "pai_job_table.csv").string();
  std::string text;
  {
    std::ifstream in(jobs, std::ios::binary);
    text.assign(std::istreambuf_iterator<char>(in), {});
  }
  std::ofstream(jobs, std::ios::binary | std::ios::trunc) << text.substr(0, text.size() - 3);
  const auto after = read_trace(dir.string(), "", BadRowPolicy::Skip);
  EXPECT_EQ(after.jobs.size() + 1, before.jobs.size());
  ASSERT_GT(after.skipped.size(), before.skipped.size());  // the row, and its task rows now unjoined
  bool found = false;
  for (const auto& s : after.skipped) found = found || s.reason.find("no final newline") != std::string::npos;
  EXPECT_TRUE(found);
  std::filesystem::remove_all(dir);
}

TEST(ColumnOrder, PolluxCsvColumnsAreFoundByName) {
  // Reordered, an extra column, and the unused gpu_time missing: the same jobs.
  const std::string path = write_temp("moved.csv",
                                      "cluster,num_gpus,extra,timestamp,duration\n"
                                      "vc1,2,x,2017-10-02 00:01:55,108.0\n"
                                      "vc2,1,y,2017-10-02 00:11:55,74.0\n");
  const auto r = read_trace(path, "", BadRowPolicy::Fail);
  ASSERT_EQ(r.format, "pollux-philly");
  ASSERT_EQ(r.jobs.size(), 2u);
  EXPECT_EQ(r.jobs[0].gpus, 2);
  EXPECT_DOUBLE_EQ(r.jobs[0].trace_duration_s, 108.0);
  EXPECT_EQ(r.jobs[0].vc, "vc1");
  EXPECT_DOUBLE_EQ(r.jobs[1].submit_s, 600);
  EXPECT_EQ(r.jobs[1].vc, "vc2");
  // A row with a field more than the header is a bad row, not a shifted read.
  std::ofstream(path, std::ios::app) << "vc3,1,z,2017-10-02 00:21:55,50.0,9\n";
  const auto skipped = read_trace(path, "", BadRowPolicy::Skip);
  ASSERT_EQ(skipped.skipped.size(), 1u);
  EXPECT_EQ(skipped.skipped[0].line, 4);
  // A needed column missing is a clear error naming it.
  const std::string bad = write_temp("lacks.csv", "timestamp,num_gpus\n2017-10-02 00:01:55,1\n");
  try {
    read_trace(bad, "pollux-philly", BadRowPolicy::Skip);
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("lacks column(s) duration"), std::string::npos) << e.what();
  }
  std::filesystem::remove(path);
  std::filesystem::remove(bad);
}

}  // namespace
}  // namespace vnsim
