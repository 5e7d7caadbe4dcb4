// pollux-philly reader on hand-written files; expected values computed by hand.
#include <gtest/gtest.h>

#include "trace_test_support.hpp"
#include "vnsim/core/error.hpp"
#include "vnsim/traces/readers.hpp"

namespace vnsim {
namespace {

using testing::trace_data;

void expect_small_philly(const TraceReadResult& r) {
  EXPECT_EQ(r.format, "pollux-philly");
  EXPECT_TRUE(r.skipped.empty());
  ASSERT_EQ(r.jobs.size(), 6u);
  // Earliest row is line 5 (05:59:52); lines 3 and 4 tie at 06:13:03 and keep
  // file order; line 2 (07:01:55) is 1 h 2 min 3 s after line 5; lines 7 and 8
  // are 83 days + 18:00:07 later, across the year boundary.
  const std::vector<std::string> ids = {"philly-5", "philly-3", "philly-4",
                                        "philly-2", "philly-7", "philly-8"};
  const std::vector<double> submit = {0, 791, 791, 3723, 7236007, 7236008};
  const std::vector<int> gpus = {8, 1, 4, 1, 2, 1};
  const std::vector<double> duration = {3600, 2951, 120.5, 66, 10, 1};
  for (std::size_t i = 0; i < ids.size(); ++i) {
    EXPECT_EQ(r.jobs[i].id, ids[i]);
    EXPECT_DOUBLE_EQ(r.jobs[i].submit_s, submit[i]) << ids[i];
    EXPECT_EQ(r.jobs[i].gpus, gpus[i]) << ids[i];
    EXPECT_DOUBLE_EQ(r.jobs[i].trace_duration_s, duration[i]) << ids[i];
    EXPECT_EQ(r.jobs[i].iterations, 0) << ids[i];
    EXPECT_TRUE(r.jobs[i].model.empty()) << ids[i];
    EXPECT_EQ(r.jobs[i].status, TraceStatus::Unknown);
  }
  EXPECT_EQ(r.jobs[0].vc, "103959");
  EXPECT_EQ(r.jobs[3].vc, "11cb48");
}

TEST(PhillyReader, SortsStablyAndRebases) {
  expect_small_philly(read_trace(trace_data("philly_small.csv"), "", BadRowPolicy::Fail));
}

TEST(PhillyReader, CrlfGivesTheSameJobs) {
  expect_small_philly(read_trace(trace_data("philly_small_crlf.csv"), "", BadRowPolicy::Fail));
  expect_small_philly(read_trace(trace_data("philly_small_crlf.csv"), "pollux-philly", BadRowPolicy::Fail));
}

TEST(PhillyReader, HeaderOnlyGivesNoJobs) {
  const auto r = read_trace(trace_data("philly_header_only.csv"), "", BadRowPolicy::Fail);
  EXPECT_TRUE(r.jobs.empty());
  EXPECT_TRUE(r.skipped.empty());
}

TEST(PhillyReader, SkipCollectsEveryBadRowWithItsReason) {
  const std::string file = trace_data("philly_bad_rows.csv");
  const auto r = read_trace(file, "", BadRowPolicy::Skip);
  ASSERT_EQ(r.jobs.size(), 2u);
  EXPECT_EQ(r.jobs[0].id, "philly-2");
  EXPECT_EQ(r.jobs[1].id, "philly-14");
  EXPECT_DOUBLE_EQ(r.jobs[1].submit_s, 58 * 60 + 5);  // 07:01:55 -> 08:00:00
  const std::vector<std::pair<long, std::string>> expected = {
      {3, "expected 5 comma-separated fields, found 4"},
      {4, "duration 'abc' is not a number"},
      {5, "duration -5.0 is negative"},
      {6, "num_gpus 0 is < 1"},
      {7, "num_gpus '1.5' is not an integer"},
      {8, "timestamp '2017-13-09 07:01:55' is not a valid YYYY-MM-DD HH:MM:SS time"},
      {9, "timestamp '2017-02-29 07:01:55' is not a valid YYYY-MM-DD HH:MM:SS time"},
      {10, "timestamp '2017-10-09T07:01:55' is not a valid YYYY-MM-DD HH:MM:SS time"},
      {11, "duration 'nan' is not a number"},
      {12, "gpu_time '' is not a number"},
  };
  ASSERT_EQ(r.skipped.size(), expected.size());
  for (std::size_t i = 0; i < expected.size(); ++i) {
    EXPECT_EQ(r.skipped[i].file, file);
    EXPECT_EQ(r.skipped[i].line, expected[i].first);
    EXPECT_EQ(r.skipped[i].reason, expected[i].second);
    EXPECT_EQ(r.skipped[i].message(),
              file + ":" + std::to_string(expected[i].first) + ": " + expected[i].second);
  }
}

TEST(PhillyReader, FailStopsAtTheFirstBadRow) {
  const std::string file = trace_data("philly_bad_rows.csv");
  try {
    read_trace(file, "", BadRowPolicy::Fail);
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()), file + ":3: expected 5 comma-separated fields, found 4");
  }
}

}  // namespace
}  // namespace vnsim
