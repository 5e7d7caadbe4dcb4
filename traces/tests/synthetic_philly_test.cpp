#include "vnsim/traces/synthetic_philly.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>

#include "test_clusters.hpp"
#include "vnsim/core/error.hpp"

namespace vnsim {
namespace {

double quantile_of(std::vector<double> v, double p) {
  std::sort(v.begin(), v.end());
  return v[static_cast<std::size_t>(p * static_cast<double>(v.size() - 1))];
}

TEST(PhillyDurationDistribution, HitsThePublishedStatistics) {
  EXPECT_NEAR(philly_duration_quantile(0.5), 1144, 1e-6);
  EXPECT_NEAR(philly_duration_quantile(0.9), 11265, 1e-6);
  EXPECT_NEAR(philly_duration_quantile(0.99), 254758, 1e-4);
  EXPECT_NEAR(philly_duration_quantile(1.0), 4628226, 1e-3);
  EXPECT_NEAR(philly_duration_mean_s(), 13136, 0.01);
  // p0 extends the p50-p90 segment: 1144 x (1144 / 11265)^(0.5 / 0.4) = 65.6 s.
  EXPECT_NEAR(philly_duration_quantile(0.0), 65.6, 0.05);
  const auto& knots = philly_duration_knots();
  for (std::size_t i = 1; i < knots.size(); ++i) {
    EXPECT_GT(knots[i].p, knots[i - 1].p);
    EXPECT_GE(knots[i].duration_s, knots[i - 1].duration_s);
  }
}

TEST(SyntheticPhilly, MatchesTheTargetDistributions) {
  const std::size_t n = 20000;
  const auto jobs = draw_philly_like_jobs(n, 31.5, 42);
  ASSERT_EQ(jobs.size(), n);
  std::map<int, int> by_gpus;
  std::vector<double> durations;
  for (const auto& j : jobs) {
    ++by_gpus[j.gpus];
    durations.push_back(j.trace_duration_s);
  }
  auto share = [&](auto pred) {
    int c = 0;
    for (const auto& [g, count] : by_gpus) c += pred(g) ? count : 0;
    return 100.0 * c / static_cast<double>(n);
  };
  EXPECT_NEAR(share([](int g) { return g == 1; }), 93.17, 1.0);
  EXPECT_NEAR(share([](int g) { return g == 2; }), 2.21, 1.0);
  EXPECT_NEAR(share([](int g) { return g == 4; }), 2.27, 1.0);
  EXPECT_NEAR(share([](int g) { return g == 8; }), 2.00, 1.0);
  EXPECT_NEAR(share([](int g) { return g > 8; }), 0.35, 1.0);
  for (const auto& [g, count] : by_gpus) {
    EXPECT_TRUE(g == 1 || g == 2 || g == 4 || g == 8 || g == 12 || g == 16 || g == 24 || g == 32 || g == 64 ||
                g == 128)
        << g;
  }
  EXPECT_NEAR(quantile_of(durations, 0.5), 1144, 114.4);
  EXPECT_NEAR(quantile_of(durations, 0.9), 11265, 1126.5);
  EXPECT_LE(*std::max_element(durations.begin(), durations.end()), 4628226);
  // Poisson arrivals at 31.5 jobs/h: the mean gap is 3600 / 31.5 = 114.3 s.
  EXPECT_DOUBLE_EQ(jobs.front().submit_s, 0);
  const double mean_gap = jobs.back().submit_s / static_cast<double>(n - 1);
  EXPECT_NEAR(mean_gap, 3600 / 31.5, 0.03 * 3600 / 31.5);
  for (std::size_t i = 1; i < n; ++i) ASSERT_GE(jobs[i].submit_s, jobs[i - 1].submit_s);
}

TEST(SyntheticPhilly, DeterministicPerSeed) {
  const auto a = draw_philly_like_jobs(500, 40, 9);
  const auto b = draw_philly_like_jobs(500, 40, 9);
  const auto c = draw_philly_like_jobs(500, 40, 10);
  int differ = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].id, b[i].id);
    EXPECT_EQ(a[i].submit_s, b[i].submit_s);
    EXPECT_EQ(a[i].gpus, b[i].gpus);
    EXPECT_EQ(a[i].trace_duration_s, b[i].trace_duration_s);
    differ += a[i].submit_s != c[i].submit_s || a[i].trace_duration_s != c[i].trace_duration_s;
  }
  EXPECT_GT(differ, 450);
  // The first jobs do not depend on how many are drawn.
  const auto prefix = draw_philly_like_jobs(10, 40, 9);
  for (std::size_t i = 0; i < prefix.size(); ++i)
    EXPECT_EQ(prefix[i].trace_duration_s, a[i].trace_duration_s);
}

TEST(SyntheticPhilly, GeneratedJobsAreRunnable) {
  const Cluster cluster(testing::test_cluster("t4-1x2x4"));
  const auto jobs = generate_philly_like(300, 31.5, 5, cluster);
  const auto again = generate_philly_like(300, 31.5, 5, cluster);
  ASSERT_EQ(jobs.size(), 300u);
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    const auto& j = jobs[i];
    EXPECT_FALSE(j.model.empty()) << j.id;
    EXPECT_GE(j.iterations, 1) << j.id;
    EXPECT_EQ(j.virtual_nodes, j.gpus) << j.id;
    EXPECT_GT(j.global_batch, 0) << j.id;
    EXPECT_EQ(j.vc, again[i].vc);
    EXPECT_EQ(j.model, again[i].model);
    EXPECT_EQ(j.iterations, again[i].iterations);
  }
}

TEST(SyntheticPhilly, RejectsBadRate) {
  EXPECT_THROW(draw_philly_like_jobs(5, 0, 1), InputError);
  EXPECT_THROW(draw_philly_like_jobs(5, -3, 1), InputError);
  EXPECT_TRUE(draw_philly_like_jobs(0, 10, 1).empty());
}

TEST(SyntheticPhilly, DefaultClusterIsPhilly2017) {
  const auto jobs = generate_philly_like(50, 31.5, 3);
  const Cluster philly(load_cluster_spec("philly-2017"));
  const auto same = generate_philly_like(50, 31.5, 3, philly);
  ASSERT_EQ(jobs.size(), same.size());
  for (std::size_t i = 0; i < jobs.size(); ++i) EXPECT_EQ(jobs[i].iterations, same[i].iterations);
}

// The VCs follow Philly's job shares (6214e9: 41,226 of 82,247 jobs = 50.1 %;
// 11cb48: 19.6 %), and drawing them leaves every other field as
// draw_philly_like_jobs made it.
TEST(SyntheticPhilly, VcsFollowPhillysJobShares) {
  const Cluster philly(load_cluster_spec("philly-2017"));
  const auto jobs = generate_philly_like(20000, 31.5, 7, philly);
  const auto drawn = draw_philly_like_jobs(20000, 31.5, 7);
  std::map<std::string, int> count;
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    ++count[jobs[i].vc];
    ASSERT_EQ(jobs[i].gpus, drawn[i].gpus);
    ASSERT_EQ(jobs[i].submit_s, drawn[i].submit_s);
  }
  EXPECT_NEAR(count["6214e9"] / 20000.0, 41226 / 82247.0, 0.01);
  EXPECT_NEAR(count["11cb48"] / 20000.0, 16091 / 82247.0, 0.01);
  EXPECT_EQ(count.count(""), 0u);
  EXPECT_LE(count.size(), 15u);
}

}  // namespace
}  // namespace vnsim
