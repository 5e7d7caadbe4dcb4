// tiresias reader on a hand-written CSV.
#include <gtest/gtest.h>

#include "crlf_copy.hpp"
#include "trace_test_support.hpp"
#include "vnsim/traces/readers.hpp"

namespace vnsim {
namespace {

using testing::trace_data;

void expect_small_tiresias(const TraceReadResult& r) {
  EXPECT_EQ(r.format, "tiresias");
  ASSERT_EQ(r.jobs.size(), 3u);
  const std::vector<std::string> ids = {"0", "5", "1"};
  const std::vector<double> submit = {0, 20, 30};
  const std::vector<int> gpus = {1, 4, 8};
  const std::vector<double> duration = {164, 500, 147};
  for (std::size_t i = 0; i < ids.size(); ++i) {
    EXPECT_EQ(r.jobs[i].id, ids[i]);
    EXPECT_DOUBLE_EQ(r.jobs[i].submit_s, submit[i]) << ids[i];
    EXPECT_EQ(r.jobs[i].gpus, gpus[i]) << ids[i];
    EXPECT_DOUBLE_EQ(r.jobs[i].trace_duration_s, duration[i]) << ids[i];
    EXPECT_TRUE(r.jobs[i].model.empty()) << ids[i];
    EXPECT_EQ(r.jobs[i].iterations, 0) << ids[i];
  }
  const std::vector<std::pair<long, std::string>> expected = {
      {4, "num_gpu 0 is < 1"},
      {5, "iterations 'abc' is not an integer"},
      {6, "duration -5 is negative"},
  };
  ASSERT_EQ(r.skipped.size(), expected.size());
  for (std::size_t i = 0; i < expected.size(); ++i) {
    EXPECT_EQ(r.skipped[i].line, expected[i].first);
    EXPECT_EQ(r.skipped[i].reason, expected[i].second);
  }
}

TEST(TiresiasReader, ReadsJobsAndReportsBadRows) {
  expect_small_tiresias(read_trace(trace_data("tiresias_small.csv"), "", BadRowPolicy::Skip));
}

TEST(TiresiasReader, CrlfGivesTheSameResult) {
  const auto crlf = testing::crlf_copy(trace_data("tiresias_small.csv"), "tiresias_crlf");
  expect_small_tiresias(read_trace(crlf, "tiresias", BadRowPolicy::Skip));
}

}  // namespace
}  // namespace vnsim
