// helios reader: a Helios cluster_log and an Acme trace, by hand.
#include <gtest/gtest.h>

#include "crlf_copy.hpp"
#include "trace_test_support.hpp"
#include "vnsim/core/error.hpp"
#include "vnsim/traces/readers.hpp"

namespace vnsim {
namespace {

using testing::trace_data;

struct Expected {
  std::string id;
  double submit, duration;
  int gpus;
  TraceStatus status;
};

void expect_jobs(const TraceReadResult& r, const std::vector<Expected>& expected) {
  ASSERT_EQ(r.jobs.size(), expected.size());
  for (std::size_t i = 0; i < expected.size(); ++i) {
    EXPECT_EQ(r.jobs[i].id, expected[i].id);
    EXPECT_DOUBLE_EQ(r.jobs[i].submit_s, expected[i].submit) << expected[i].id;
    EXPECT_DOUBLE_EQ(r.jobs[i].trace_duration_s, expected[i].duration) << expected[i].id;
    EXPECT_EQ(r.jobs[i].gpus, expected[i].gpus) << expected[i].id;
    EXPECT_EQ(r.jobs[i].status, expected[i].status) << expected[i].id;
  }
}

void expect_small_helios(const TraceReadResult& r) {
  EXPECT_EQ(r.format, "helios");
  // Submit times from 2020-04-01 00:00:00; duration = end - start.
  expect_jobs(r, {{"1000", 0, 30, 1, TraceStatus::Killed},
                  {"1001", 10, 3600, 8, TraceStatus::Pass},
                  {"1003", 120, 86400, 2, TraceStatus::Failed},
                  {"1005", 300, 7200, 4, TraceStatus::Failed}});
  EXPECT_EQ(r.jobs[0].user, "u2");
  EXPECT_EQ(r.jobs[0].vc, "vc2");
  const std::vector<std::pair<long, std::string>> expected = {
      {4, "CPU-only job (gpu_num 0)"},
      {6, "job never started (start_time is empty)"},
      {8, "unknown state 'RUNNING' (expected COMPLETED, CANCELLED, FAILED, TIMEOUT or NODE_FAIL)"},
      {9, "end_time is before start_time"},
  };
  ASSERT_EQ(r.skipped.size(), expected.size());
  for (std::size_t i = 0; i < expected.size(); ++i) {
    EXPECT_EQ(r.skipped[i].line, expected[i].first);
    EXPECT_EQ(r.skipped[i].reason, expected[i].second);
  }
}

TEST(HeliosReader, ReadsHeliosClusterLog) {
  expect_small_helios(read_trace(trace_data("helios_small.csv"), "", BadRowPolicy::Skip));
}

TEST(HeliosReader, CrlfGivesTheSameResult) {
  const auto crlf = testing::crlf_copy(trace_data("helios_small.csv"), "helios_crlf");
  expect_small_helios(read_trace(crlf, "helios", BadRowPolicy::Skip));
}

TEST(HeliosReader, ReadsAcmeColumnsAndZoneOffsets) {
  const auto r = read_trace(trace_data("acme_small.csv"), "", BadRowPolicy::Fail);
  EXPECT_EQ(r.format, "helios");
  // In UTC: dlc1 submitted 00:00:00, dlc2 00:59:00 (+07:00), dlc3 01:00:00
  // (-02:00 the day before); dlc3 ends 01:00:10 UTC.
  expect_jobs(r, {{"dlc1", 0, 3600, 8, TraceStatus::Pass},
                  {"dlc2", 3540, 600, 1, TraceStatus::Failed},
                  {"dlc3", 3600, 10, 2, TraceStatus::Killed}});
  EXPECT_EQ(r.jobs[0].vc, "");
  EXPECT_EQ(r.jobs[0].user, "u1");
}

TEST(HeliosReader, HeaderWithoutRequiredColumnsIsAnError) {
  EXPECT_THROW(read_trace(trace_data("openb_small.csv"), "helios", BadRowPolicy::Skip), InputError);
}

}  // namespace
}  // namespace vnsim
