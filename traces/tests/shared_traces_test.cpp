// The real trace files in ../shared (skipped when VNSIM_SHARED is unset).
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <map>
#include <set>

#include "shared_data.hpp"
#include "vnsim/core/cluster.hpp"
#include "vnsim/core/gpu_catalog.hpp"
#include "vnsim/core/model_catalog.hpp"
#include "vnsim/traces/readers.hpp"
#include "vnsim/traces/work_assignment.hpp"

namespace vnsim {
namespace {

TEST(SharedTraces, FullPhillyReadsEveryRowAndAssignsWork) {
  VNSIM_REQUIRE_SHARED(shared);
  const Cluster cluster(load_cluster_spec("philly-2017"));
  const auto start = std::chrono::steady_clock::now();
  auto r = read_trace(shared + "/traces/philly_2017_pollux_full.csv", "", BadRowPolicy::Fail);
  assign_work(r.jobs, cluster, GpuCatalog::builtin(), ModelCatalog::builtin(), 1);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_EQ(r.format, "pollux-philly");
  ASSERT_EQ(r.jobs.size(), 82247u);
  EXPECT_TRUE(r.skipped.empty());
  // Computed from the file: 2017-09-04 10:30 -> 2017-12-22 08:02, i.e. 108.9 days.
  EXPECT_DOUBLE_EQ(r.jobs.front().submit_s, 0);
  EXPECT_NEAR(r.jobs.back().submit_s / 86400, 108.9, 0.05);
  EXPECT_TRUE(std::is_sorted(r.jobs.begin(), r.jobs.end(),
                             [](const JobSpec& a, const JobSpec& b) { return a.submit_s < b.submit_s; }));
  long gpus = 0;
  std::set<std::string> ids;
  std::map<int, int> by_size;
  for (const auto& j : r.jobs) {
    gpus += j.gpus;
    ++by_size[j.gpus];
    ids.insert(j.id);
    EXPECT_GE(j.iterations, 1) << j.id;
  }
  EXPECT_EQ(ids.size(), r.jobs.size());
  EXPECT_NEAR(static_cast<double>(gpus) / static_cast<double>(r.jobs.size()), 1.30, 0.005);
  EXPECT_EQ(by_size[128], 3);
  EXPECT_EQ(by_size[16], 199);
  // Speed is a benchmark's business (docs/PERFORMANCE.md), not a pass/fail
  // bound here: a loaded machine would fail a timed assertion for nothing.
  RecordProperty("read_and_assign_seconds", std::to_string(seconds));
}

TEST(SharedTraces, PhillySample2k) {
  VNSIM_REQUIRE_SHARED(shared);
  const auto r = read_trace(shared + "/traces/philly_2017_pollux_sample_2k.csv", "", BadRowPolicy::Fail);
  ASSERT_EQ(r.jobs.size(), 2000u);
  EXPECT_TRUE(r.skipped.empty());
  // 2.02 days from 2017-10-02 (computed from the file).
  EXPECT_NEAR(r.jobs.back().submit_s / 86400, 2.02, 0.01);
}

TEST(SharedTraces, PolluxWorkload6) {
  VNSIM_REQUIRE_SHARED(shared);
  const auto r = read_trace(shared + "/traces/pollux_philly_derived_workload-6.csv", "", BadRowPolicy::Fail);
  EXPECT_EQ(r.format, "pollux-workload");
  ASSERT_EQ(r.jobs.size(), 160u);
  EXPECT_TRUE(r.skipped.empty());
  std::map<std::string, int> apps;
  for (const auto& j : r.jobs) ++apps[j.model];
  EXPECT_EQ(
      apps,
      (std::map<std::string, int>{
          {"bert", 15}, {"cifar10", 67}, {"deepspeech2", 16}, {"imagenet", 3}, {"ncf", 54}, {"yolov3", 5}}));
  // Arrivals 53 s -> 28,189 s, rebased to start at 0.
  EXPECT_DOUBLE_EQ(r.jobs.back().submit_s, 28189 - 53);
}

}  // namespace
}  // namespace vnsim
