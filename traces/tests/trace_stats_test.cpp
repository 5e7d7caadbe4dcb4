// trace statistics on hand-made jobs, where every expected value is
// obvious from the input.
#include "vnsim/traces/trace_stats.hpp"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

namespace vnsim {
namespace {

JobSpec job(const std::string& id, double submit, int gpus, double duration, const std::string& vc = "",
            TraceStatus status = TraceStatus::Unknown) {
  JobSpec j;
  j.id = id;
  j.submit_s = submit;
  j.gpus = gpus;
  j.trace_duration_s = duration;
  j.vc = vc;
  j.status = status;
  return j;
}

TEST(TraceStats, PercentileInterpolatesLikeNumpy) {
  const std::vector<double> v = {10, 20, 30, 40};
  EXPECT_DOUBLE_EQ(percentile_of_sorted(v, 0.5), 25);  // numpy.percentile([10,20,30,40], 50)
  EXPECT_DOUBLE_EQ(percentile_of_sorted(v, 0.9), 37);  // (n-1) p = 2.7
  EXPECT_DOUBLE_EQ(percentile_of_sorted(v, 1.0), 40);
  EXPECT_DOUBLE_EQ(percentile_of_sorted({5}, 0.99), 5);
}

TEST(TraceStats, CountsBucketsStatusVcsAndHourlyArrivals) {
  std::vector<JobSpec> jobs = {job("a", 0, 1, 100, "x", TraceStatus::Pass),
                               job("b", 10, 1, 200, "y", TraceStatus::Failed),
                               job("c", 3700, 3, 300, "x", TraceStatus::Killed), job("d", 7300, 16, -1, "x"),
                               job("e", 7400, 8, 400, "")};
  jobs[4].gpu_type = "V100";
  const TraceStats s = compute_trace_stats(jobs, 2, "mem", "jsonl");
  EXPECT_EQ(s.jobs, 5u);
  EXPECT_EQ(s.skipped_rows, 2u);
  EXPECT_DOUBLE_EQ(s.span_s, 7400);
  EXPECT_EQ(s.gpus_exact.at(3), 1u);
  // 1, 2, 4, 8, >8, then sizes that fit no power-of-two bucket.
  ASSERT_EQ(s.gpu_buckets.size(), 6u);
  EXPECT_EQ(s.gpu_buckets[0].second, 2u);
  EXPECT_EQ(s.gpu_buckets[3].second, 1u);
  EXPECT_EQ(s.gpu_buckets[4].second, 1u);
  EXPECT_EQ(s.gpu_buckets[5], (std::pair<std::string, std::size_t>{"other <8", 1}));
  EXPECT_DOUBLE_EQ(s.mean_gpus, 29.0 / 5);
  EXPECT_EQ(s.duration.jobs, 4u);  // d has no duration
  EXPECT_DOUBLE_EQ(s.duration.p50_s, 250);
  EXPECT_DOUBLE_EQ(s.duration.mean_s, 250);
  EXPECT_DOUBLE_EQ(s.duration.max_s, 400);
  EXPECT_EQ(s.status.at("unknown"), 2u);
  EXPECT_EQ(s.status.at("failed"), 1u);
  EXPECT_EQ(s.gpu_types.at("(any)"), 4u);
  EXPECT_EQ(s.gpu_types.at("V100"), 1u);
  EXPECT_EQ(s.vc_count, 2u);
  ASSERT_EQ(s.top_vcs.size(), 2u);
  EXPECT_EQ(s.top_vcs[0], (std::pair<std::string, std::size_t>{"x", 3}));
  EXPECT_DOUBLE_EQ(s.bin_s, 3600);  // span under two days: per hour
  ASSERT_EQ(s.arrivals.size(), 3u);
  EXPECT_EQ(s.arrivals[0].jobs, 2u);
  EXPECT_EQ(s.arrivals[1].jobs, 1u);
  EXPECT_EQ(s.arrivals[2].jobs, 2u);
}

TEST(TraceStats, TopVcsKeepsTenMostFrequentWithTiesByName) {
  std::vector<JobSpec> jobs;
  for (int v = 0; v < 12; ++v)
    for (int k = 0; k <= v % 3; ++k)
      jobs.push_back(
          job("j" + std::to_string(v) + "-" + std::to_string(k), 0, 1, 1, "vc" + std::to_string(v + 10)));
  const TraceStats s = compute_trace_stats(jobs, 0, "mem", "jsonl");
  EXPECT_EQ(s.vc_count, 12u);
  ASSERT_EQ(s.top_vcs.size(), 10u);
  EXPECT_EQ(s.top_vcs[0].first, "vc12");  // 3 jobs, first by name among vc12, vc15, vc18, vc21
  EXPECT_EQ(s.top_vcs[3].first, "vc21");
  EXPECT_EQ(s.top_vcs[4].second, 2u);
}

TEST(TraceStats, TextAndJsonAreDeterministicAndConsistent) {
  std::vector<JobSpec> jobs = {job("a", 0, 1, 100), job("b", 3 * 86400, 2, 50)};
  const TraceStats s = compute_trace_stats(jobs, 0, "mem", "jsonl");
  EXPECT_DOUBLE_EQ(s.bin_s, 86400);
  EXPECT_EQ(s.arrivals.size(), 4u);
  EXPECT_EQ(trace_stats_text(s), trace_stats_text(compute_trace_stats(jobs, 0, "mem", "jsonl")));
  const auto j = nlohmann::json::parse(trace_stats_json(s));
  EXPECT_EQ(j["jobs"], 2);
  EXPECT_EQ(j["gpus_per_job"]["buckets"]["2"], 1);
  EXPECT_DOUBLE_EQ(j["duration_s"]["p50"].get<double>(), 75);
  EXPECT_EQ(j["arrivals"].size(), 4u);
  EXPECT_NE(trace_stats_text(s).find("arrivals per day"), std::string::npos);
}

TEST(TraceStats, EmptyTraceHasNoBinsAndNoDurations) {
  const TraceStats s = compute_trace_stats(std::vector<JobSpec>{}, 3, "mem", "jsonl");
  EXPECT_EQ(s.jobs, 0u);
  EXPECT_TRUE(s.arrivals.empty());
  EXPECT_EQ(s.duration.jobs, 0u);
  EXPECT_NO_THROW(trace_stats_text(s));
}

}  // namespace
}  // namespace vnsim
