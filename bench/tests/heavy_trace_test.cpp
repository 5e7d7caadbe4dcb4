// The multi-node-heavy trace's --load option (bench/heavy/heavy_trace.hpp):
// the same jobs, arrivals spaced so that the offered load is the one asked.
#include "heavy/heavy_trace.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <sstream>
#include <stdexcept>

#include "vnsim/core/cluster_spec.hpp"

namespace vnsim::bench {
namespace {

const Cluster& cluster64() {
  static const Cluster cluster(load_cluster_spec("pollux-16x4"));
  return cluster;
}

TEST(HeavyTrace, DefaultGapIsThirtySecondsPer64Gpus) {
  EXPECT_DOUBLE_EQ(default_mean_gap_s(64), 30.0);
  EXPECT_DOUBLE_EQ(default_mean_gap_s(2490), 30.0 * 64 / 2490);
}

TEST(HeavyTrace, AnotherGapMovesOnlyTheArrivals) {
  const auto a = heavy_trace(300, 7, 4, 30.0);
  const auto b = heavy_trace(300, 7, 4, 300.0);
  ASSERT_EQ(a.size(), b.size());
  int multi_node = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].id, b[i].id);
    EXPECT_EQ(a[i].gpus, b[i].gpus);
    EXPECT_EQ(a[i].iterations, b[i].iterations);
    EXPECT_EQ(a[i].model, b[i].model);
    EXPECT_EQ(a[i].global_batch, b[i].global_batch);
    // Same uniforms, ten times the mean: ten times the time, up to the
    // millisecond rounding of each.
    EXPECT_NEAR(b[i].submit_s, 10 * a[i].submit_s, 0.0055) << i;
    multi_node += a[i].gpus > 4;
  }
  EXPECT_GT(a.back().submit_s, 0);
  EXPECT_GT(multi_node, 40);  // about a quarter of 300
  EXPECT_LT(multi_node, 110);
}

TEST(HeavyTrace, MeanGapIsMeanWorkOverLoadTimesGpus) {
  EXPECT_DOUBLE_EQ(mean_gap_for_load(6400.0, 0.5, 64), 200.0);
  EXPECT_DOUBLE_EQ(mean_gap_for_load(6400.0, 2.0, 64), 50.0);
  EXPECT_THROW(mean_gap_for_load(6400.0, 0.0, 64), std::invalid_argument);
  EXPECT_THROW(mean_gap_for_load(6400.0, -1.0, 64), std::invalid_argument);
}

TEST(HeavyTrace, AloneWorkIsGpusTimesIterationsTimesIterationTime) {
  auto jobs = heavy_trace(1, 1, 4, 30.0);
  jobs[0].iterations = 1000;
  const double thousand =
      alone_gpu_seconds(jobs, cluster64(), GpuCatalog::builtin(), ModelCatalog::builtin());
  jobs[0].iterations = 2000;
  const double two_thousand =
      alone_gpu_seconds(jobs, cluster64(), GpuCatalog::builtin(), ModelCatalog::builtin());
  EXPECT_GT(thousand, 0);
  EXPECT_NEAR(two_thousand, 2 * thousand, 1e-9 * thousand);
  const double one_gpu = thousand / jobs[0].gpus;
  jobs.push_back(jobs[0]);  // the same job twice: twice the work
  jobs[1].iterations = 1000;
  EXPECT_NEAR(alone_gpu_seconds(jobs, cluster64(), GpuCatalog::builtin(), ModelCatalog::builtin()),
              3 * one_gpu * jobs[0].gpus, 1e-9 * thousand);
}

TEST(HeavyTrace, LoadSetsTheOfferedLoadWithTheSameJobs) {
  const auto& gpus = GpuCatalog::builtin();
  const auto& models = ModelCatalog::builtin();
  const std::size_t n = 2000;
  const auto base = heavy_trace(n, 3, 4, default_mean_gap_s(64));
  const double work = alone_gpu_seconds(base, cluster64(), gpus, models);
  for (const double load : {0.7, 2.0}) {
    const auto jobs = heavy_trace_at_load(n, 3, cluster64(), gpus, models, load);
    ASSERT_EQ(jobs.size(), n);
    for (std::size_t i = 0; i < n; ++i) {
      ASSERT_EQ(jobs[i].iterations, base[i].iterations) << i;
      ASSERT_EQ(jobs[i].gpus, base[i].gpus) << i;
    }
    const double gap = mean_gap_for_load(work / n, load, 64);
    const double ratio = gap / default_mean_gap_s(64);
    EXPECT_NEAR(jobs.back().submit_s, ratio * base.back().submit_s, 0.001 * ratio * n);
    // A Poisson span of 1,999 gaps is within a few percent of its mean, so
    // the load over the span is the one asked for up to that.
    EXPECT_NEAR(offered_load(jobs, work, 64), load, 0.1 * load);
  }
}

TEST(HeavyTrace, TheDefaultTraceIsOfferedThousandsOfTimesTheCluster) {
  const auto jobs = heavy_trace(1000, 1, 4, default_mean_gap_s(64));
  EXPECT_GT(
      offered_load(jobs, alone_gpu_seconds(jobs, cluster64(), GpuCatalog::builtin(), ModelCatalog::builtin()),
                   64),
      100);
}

TEST(HeavyTrace, LoadTracesKeepTheirMillisecondArrivals) {
  auto jobs = heavy_trace(2, 1, 4, 30.0);
  jobs[0].submit_s = 7880.123;
  jobs[1].submit_s = 123456789.125;
  std::ostringstream plain, exact;
  write_heavy_jsonl(plain, jobs, false);
  write_heavy_jsonl(exact, jobs, true);
  // The default trace as it always was: six significant digits.
  EXPECT_NE(plain.str().find("\"submit_s\": 7880.12,"), std::string::npos) << plain.str();
  EXPECT_NE(plain.str().find("\"submit_s\": 1.23457e+08,"), std::string::npos) << plain.str();
  EXPECT_NE(exact.str().find("\"submit_s\": 7880.123,"), std::string::npos) << exact.str();
  EXPECT_NE(exact.str().find("\"submit_s\": 123456789.125,"), std::string::npos) << exact.str();
  EXPECT_NE(exact.str().find("\"iterations\": " + std::to_string(jobs[1].iterations) + ","),
            std::string::npos);
}

}  // namespace
}  // namespace vnsim::bench
