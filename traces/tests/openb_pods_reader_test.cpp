// openb-pods reader: hand-written sample and the shared 2k-pod sample.
#include <gtest/gtest.h>

#include <map>

#include "crlf_copy.hpp"
#include "shared_data.hpp"
#include "trace_test_support.hpp"
#include "vnsim/traces/readers.hpp"

namespace vnsim {
namespace {

using testing::trace_data;

void expect_small_openb(const TraceReadResult& r) {
  EXPECT_EQ(r.format, "openb-pods");
  ASSERT_EQ(r.jobs.size(), 4u);
  // Submit = creation_time - 100 (first pod); duration = deletion - scheduled.
  EXPECT_EQ(r.jobs[0].id, "openb-pod-0000");
  EXPECT_DOUBLE_EQ(r.jobs[0].submit_s, 0);
  EXPECT_DOUBLE_EQ(r.jobs[0].trace_duration_s, 4900);
  EXPECT_EQ(r.jobs[0].status, TraceStatus::Unknown);
  EXPECT_FALSE(r.jobs[0].gpu_type.has_value());

  EXPECT_EQ(r.jobs[1].id, "openb-pod-0001");  // 460 milli-GPU: 1 GPU, share kept
  EXPECT_EQ(r.jobs[1].gpus, 1);
  EXPECT_EQ(r.jobs[1].gpu_milli, 460);
  EXPECT_EQ(r.jobs[0].gpu_milli, 0);  // gpu_milli 1000: a whole GPU
  EXPECT_DOUBLE_EQ(r.jobs[1].submit_s, 50);
  EXPECT_DOUBLE_EQ(r.jobs[1].trace_duration_s, 740);
  EXPECT_EQ(r.jobs[1].status, TraceStatus::Pass);
  EXPECT_EQ(r.jobs[1].gpu_type, "V100");  // V100M16|V100M32 both map to V100

  EXPECT_EQ(r.jobs[2].id, "openb-pod-0003");
  EXPECT_EQ(r.jobs[2].gpus, 8);
  EXPECT_DOUBLE_EQ(r.jobs[2].trace_duration_s, 995);
  EXPECT_EQ(r.jobs[2].status, TraceStatus::Failed);
  EXPECT_EQ(r.jobs[2].gpu_type, "V100");  // undisclosed G2 stands in as V100, as in the node list

  EXPECT_EQ(r.jobs[3].id, "openb-pod-0006");
  EXPECT_EQ(r.jobs[3].gpus, 4);
  EXPECT_DOUBLE_EQ(r.jobs[3].submit_s, 210);
  EXPECT_DOUBLE_EQ(r.jobs[3].trace_duration_s, 10);
  EXPECT_EQ(r.jobs[3].gpu_type, "T4|P100");  // two different catalog types

  const std::vector<std::pair<long, std::string>> expected = {
      {4, "CPU-only pod (num_gpu 0)"},
      {6, "pod never scheduled (scheduled_time is empty)"},
      {7, "gpu_milli 1200 is > 1000"},
      {9, "deletion_time is before scheduled_time"},
  };
  ASSERT_EQ(r.skipped.size(), expected.size());
  for (std::size_t i = 0; i < expected.size(); ++i) {
    EXPECT_EQ(r.skipped[i].line, expected[i].first);
    EXPECT_EQ(r.skipped[i].reason, expected[i].second);
  }
}

TEST(OpenbPodsReader, ReadsPodsAndReportsBadRows) {
  expect_small_openb(read_trace(trace_data("openb_small.csv"), "", BadRowPolicy::Skip));
}

TEST(OpenbPodsReader, CrlfGivesTheSameResult) {
  const auto crlf = testing::crlf_copy(trace_data("openb_small.csv"), "openb_crlf");
  expect_small_openb(read_trace(crlf, "openb-pods", BadRowPolicy::Skip));
}

TEST(OpenbPodsReader, SharedSampleOf2000Pods) {
  VNSIM_REQUIRE_SHARED(shared);
  const auto r = read_trace(shared + "/traces/alibaba_gpu_2023_openb_sample_2k.csv", "", BadRowPolicy::Skip);
  EXPECT_EQ(r.format, "openb-pods");
  // Counts from awk -F, on the file (columns: 4 num_gpu, 8 pod_phase,
  // 11 scheduled_time): 275 rows with num_gpu 0; 144 more with an empty
  // scheduled_time; the 1581 others are 754 Failed, 783 Running, 44 Succeeded.
  EXPECT_EQ(r.jobs.size(), 1581u);
  ASSERT_EQ(r.skipped.size(), 419u);
  std::map<std::string, int> reasons;
  for (const auto& issue : r.skipped) ++reasons[issue.reason];
  EXPECT_EQ(reasons["CPU-only pod (num_gpu 0)"], 275);
  EXPECT_EQ(reasons["pod never scheduled (scheduled_time is empty)"], 144);
  std::map<TraceStatus, int> status;
  for (const auto& job : r.jobs) ++status[job.status];
  EXPECT_EQ(status[TraceStatus::Failed], 754);
  EXPECT_EQ(status[TraceStatus::Unknown], 783);
  EXPECT_EQ(status[TraceStatus::Pass], 44);
  // GPU-sharing pods keep their share. awk -F, 'NR>1 && $4>0 && $11!="" &&
  // $5<1000' gives 618 such pods whose gpu_milli sum to 333680.
  int fractional = 0;
  long long milli = 0;
  for (const auto& job : r.jobs) {
    if (job.gpu_milli == 0) continue;
    ++fractional;
    milli += job.gpu_milli;
  }
  EXPECT_EQ(fractional, 618);
  EXPECT_EQ(milli, 333680);
}

}  // namespace
}  // namespace vnsim
