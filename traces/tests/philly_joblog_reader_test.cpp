// philly-joblog reader on hand-written JSON arrays; expectations by hand.
#include <gtest/gtest.h>

#include "crlf_copy.hpp"
#include "trace_test_support.hpp"
#include "vnsim/core/error.hpp"
#include "vnsim/traces/readers.hpp"

namespace vnsim {
namespace {

using testing::trace_data;

void expect_small_joblog(const TraceReadResult& r) {
  EXPECT_EQ(r.format, "philly-joblog");
  ASSERT_EQ(r.jobs.size(), 3u);
  // 0001 submitted 09:59:00 is first; 0002 at 10:00:00 (+60 s), 0003 at
  // 10:30:00 (+1860 s). 0001 ran 10:00:00 -> 11:00:00 over two attempts and
  // its last attempt had 4 GPUs; 0002 had 2 + 1 GPUs on two machines.
  const std::vector<std::string> ids = {"application_1_0001", "application_1_0002", "application_1_0003"};
  const std::vector<double> submit = {0, 60, 1860};
  const std::vector<int> gpus = {4, 3, 1};
  const std::vector<double> duration = {3600, 600, 10};
  const std::vector<TraceStatus> status = {TraceStatus::Killed, TraceStatus::Pass, TraceStatus::Failed};
  for (std::size_t i = 0; i < ids.size(); ++i) {
    EXPECT_EQ(r.jobs[i].id, ids[i]);
    EXPECT_DOUBLE_EQ(r.jobs[i].submit_s, submit[i]) << ids[i];
    EXPECT_EQ(r.jobs[i].gpus, gpus[i]) << ids[i];
    EXPECT_DOUBLE_EQ(r.jobs[i].trace_duration_s, duration[i]) << ids[i];
    EXPECT_EQ(r.jobs[i].status, status[i]) << ids[i];
  }
  EXPECT_EQ(r.jobs[0].vc, "vc2");
  EXPECT_EQ(r.jobs[0].user, "u2");

  const std::vector<std::pair<long, std::string>> expected = {
      {10, "job never started (no attempts)"},
      {11, "last attempt end_time is None (running when the trace was captured, or not logged)"},
      {12, "submitted_time is None"},
      {13, "duplicate job id 'application_1_0002' (first on line 2)"},
      {14, "expected a job object"},
      {16, "unknown status 'Running' (expected Pass, Killed or Failed)"},
  };
  ASSERT_EQ(r.skipped.size(), 7u);
  std::size_t e = 0;
  for (const auto& issue : r.skipped) {
    if (issue.line == 15) {
      EXPECT_EQ(issue.reason.rfind("invalid JSON: ", 0), 0u) << issue.reason;
      continue;
    }
    ASSERT_LT(e, expected.size());
    EXPECT_EQ(issue.line, expected[e].first);
    EXPECT_EQ(issue.reason, expected[e].second);
    ++e;
  }
}

TEST(PhillyJoblogReader, ReadsJobsAndReportsEveryBadElement) {
  expect_small_joblog(read_trace(trace_data("philly_joblog_small.json"), "", BadRowPolicy::Skip));
}

TEST(PhillyJoblogReader, CrlfGivesTheSameResult) {
  const auto crlf = testing::crlf_copy(trace_data("philly_joblog_small.json"), "joblog_crlf");
  expect_small_joblog(read_trace(crlf, "philly-joblog", BadRowPolicy::Skip));
}

TEST(PhillyJoblogReader, FailPolicyThrowsAtTheFirstBadElement) {
  const std::string file = trace_data("philly_joblog_small.json");
  try {
    read_trace(file, "philly-joblog", BadRowPolicy::Fail);
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    // A job that never started is filtered, not corrupt: Fail stops at the
    // first corrupt element after it.
    EXPECT_EQ(std::string(e.what()), file +
                                         ":11: last attempt end_time is None (running when the trace was "
                                         "captured, or not logged)");
  }
}

TEST(PhillyJoblogReader, TruncatedFileKeepsEarlierJobs) {
  const std::string file = trace_data("philly_joblog_truncated.json");
  const auto r = read_trace(file, "", BadRowPolicy::Skip);
  ASSERT_EQ(r.jobs.size(), 1u);
  EXPECT_EQ(r.jobs[0].id, "a1");
  EXPECT_DOUBLE_EQ(r.jobs[0].trace_duration_s, 7);
  ASSERT_EQ(r.skipped.size(), 1u);
  EXPECT_EQ(r.skipped[0].message(), file + ":3: file ends inside this job object");
}

TEST(PhillyJoblogReader, RefusesAFileThatIsNotAnArray) {
  EXPECT_THROW(read_trace(trace_data("jobs_bad_rows.jsonl"), "philly-joblog", BadRowPolicy::Skip),
               InputError);
}

}  // namespace
}  // namespace vnsim
