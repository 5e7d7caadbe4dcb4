// Evidence: statistics of every job trace in ../shared/traces against values
// computed independently in Python (csv module, numpy-style linear
// percentiles: sorted[(n-1) p] interpolated), e.g. for the full Philly file:
//   d = sorted(float(r['duration']) for r in csv.DictReader(open(f)))
//   h = (len(d)-1)*p; lo = floor(h); d[lo] + (h-lo)*(d[lo+1]-d[lo])
// span = (max(timestamp) - min(timestamp)).total_seconds() with datetime.strptime.
#include <gtest/gtest.h>

#include "shared_data.hpp"
#include "vnsim/traces/readers.hpp"
#include "vnsim/traces/trace_stats.hpp"

namespace vnsim {
namespace {

struct Expected {
  const char* file;
  std::size_t jobs, one_gpu, over_8, vcs;
  double span_s, p50, p90, p99, mean, max;
};

TraceStats stats_of(const std::string& path) {
  return compute_trace_stats(read_trace(path, "", BadRowPolicy::Fail), path);
}

TEST(TraceStatsShared, PolluxPhillyFilesMatchIndependentComputation) {
  VNSIM_REQUIRE_SHARED(shared);
  const Expected cases[] = {
      {"philly_2017_pollux_full.csv", 82247, 76627, 289, 15, 9408690, 1144.0, 11264.8, 254758.42,
       13135.931401753256, 4628226},
      {"philly_2017_pollux_sample_2k.csv", 2000, 1841, 10, 9, 174620, 2589.5, 4769.3, 124261.29, 8295.1855,
       1121671},
      {"philly_2017_pollux_sample_1week.csv", 11386, 10823, 19, 11, 604421, 2322.0, 10547.0, 201627.25,
       10272.730107149131, 2214025},
  };
  for (const auto& e : cases) {
    SCOPED_TRACE(e.file);
    const TraceStats s = stats_of(shared + "/traces/" + e.file);
    EXPECT_EQ(s.format, "pollux-philly");
    EXPECT_EQ(s.jobs, e.jobs);
    EXPECT_EQ(s.skipped_rows, 0u);
    EXPECT_EQ(s.gpu_buckets[0].second, e.one_gpu);
    EXPECT_EQ(s.gpu_buckets[4].second, e.over_8);
    EXPECT_EQ(s.vc_count, e.vcs);
    EXPECT_DOUBLE_EQ(s.span_s, e.span_s);
    EXPECT_NEAR(s.duration.p50_s, e.p50, 0.01);
    EXPECT_NEAR(s.duration.p90_s, e.p90, 0.01);
    EXPECT_NEAR(s.duration.p99_s, e.p99, 0.01);
    EXPECT_NEAR(s.duration.mean_s, e.mean, 1e-6);
    EXPECT_DOUBLE_EQ(s.duration.max_s, e.max);
  }
  // The figures: 82,247 jobs, single-GPU share about 93 % (computed: 93.17 %).
  const TraceStats full = stats_of(shared + "/traces/philly_2017_pollux_full.csv");
  EXPECT_NEAR(100.0 * static_cast<double>(full.gpu_buckets[0].second) / static_cast<double>(full.jobs), 93.17,
              0.005);
  EXPECT_NEAR(full.jobs_per_hour, 31.5, 0.05);
  // Computed: largest VC 6214e9 with 41,226 jobs.
  EXPECT_EQ(full.top_vcs[0], (std::pair<std::string, std::size_t>{"6214e9", 41226}));
  std::size_t binned = 0;
  for (const auto& b : full.arrivals) binned += b.jobs;
  EXPECT_EQ(binned, full.jobs);
  EXPECT_EQ(full.arrivals.size(), 109u);  // floor(9408690 / 86400) + 1 days
}

TEST(TraceStatsShared, PolluxWorkloadMatchesIndependentComputation) {
  VNSIM_REQUIRE_SHARED(shared);
  // Python: 160 rows; time 53 -> 28189 (span 28136 s); num_replicas == 1 in 54
  // rows, max 48, sum 1134; no duration column.
  const TraceStats s = stats_of(shared + "/traces/pollux_philly_derived_workload-6.csv");
  EXPECT_EQ(s.format, "pollux-workload");
  EXPECT_EQ(s.jobs, 160u);
  EXPECT_DOUBLE_EQ(s.span_s, 28136);
  EXPECT_EQ(s.gpus_exact.at(1), 54u);
  EXPECT_EQ(s.max_gpus, 48);
  EXPECT_NEAR(s.mean_gpus, 1134.0 / 160, 1e-12);
  EXPECT_EQ(s.duration.jobs, 0u);
  EXPECT_DOUBLE_EQ(s.bin_s, 3600);
}

TEST(TraceStatsShared, OpenbSampleMatchesIndependentComputation) {
  VNSIM_REQUIRE_SHARED(shared);
  // Python over the 2,000 rows, keeping what the openb-pods reader keeps (pods
  // with num_gpu > 0 and a scheduled_time; the 275 CPU-only and 144 unscheduled
  // GPU pods are skipped rows): 1,581 pods; 1 GPU 1,574, 2 GPUs 1, 8 GPUs 6;
  // lifetime = deletion - scheduled: p50 317, p90 7718, max 12,537,496;
  // phases Running 783, Failed 754, Succeeded 44; creation span 10,725,805 s.
  const auto read =
      read_trace(shared + "/traces/alibaba_gpu_2023_openb_sample_2k.csv", "", BadRowPolicy::Skip);
  const TraceStats s = compute_trace_stats(read, "openb");
  EXPECT_EQ(s.format, "openb-pods");
  EXPECT_EQ(s.jobs, 1581u);
  EXPECT_EQ(s.skipped_rows, 419u);
  EXPECT_EQ(s.gpus_exact, (std::map<int, std::size_t>{{1, 1574}, {2, 1}, {8, 6}}));
  EXPECT_DOUBLE_EQ(s.duration.p50_s, 317);
  EXPECT_DOUBLE_EQ(s.duration.p90_s, 7718);
  EXPECT_DOUBLE_EQ(s.duration.max_s, 12537496);
  EXPECT_EQ(s.status.at("failed"), 754u);
  EXPECT_EQ(s.status.at("pass"), 44u);
  EXPECT_EQ(s.status.at("unknown"), 783u);
  EXPECT_DOUBLE_EQ(s.span_s, 10725805);
}

}  // namespace
}  // namespace vnsim
