// pollux-workload reader. Needs the builtin model catalog (core/data/models.json).
#include <gtest/gtest.h>

#include "trace_test_support.hpp"
#include "vnsim/core/error.hpp"
#include "vnsim/traces/readers.hpp"

namespace vnsim {
namespace {

using testing::trace_data;

void expect_small_workload(const TraceReadResult& r) {
  EXPECT_EQ(r.format, "pollux-workload");
  EXPECT_TRUE(r.skipped.empty());
  ASSERT_EQ(r.jobs.size(), 3u);
  // Sorted by time (10.5, 53, 200) and rebased to the first arrival.
  EXPECT_EQ(r.jobs[0].id, "ncf-1");
  EXPECT_DOUBLE_EQ(r.jobs[0].submit_s, 0);
  EXPECT_EQ(r.jobs[0].model, "ncf");
  EXPECT_EQ(r.jobs[0].gpus, 1);
  EXPECT_EQ(r.jobs[0].global_batch, 32768);
  EXPECT_EQ(r.jobs[1].id, "cifar10-0");
  EXPECT_DOUBLE_EQ(r.jobs[1].submit_s, 42.5);
  EXPECT_EQ(r.jobs[1].gpus, 6);
  EXPECT_EQ(r.jobs[1].virtual_nodes, 6);
  EXPECT_EQ(r.jobs[1].global_batch, 2048);
  EXPECT_EQ(r.jobs[2].id, "bert-2");
  EXPECT_DOUBLE_EQ(r.jobs[2].submit_s, 189.5);
  for (const auto& job : r.jobs) {
    EXPECT_EQ(job.iterations, 0) << "iterations come from assign_work";
    EXPECT_LT(job.trace_duration_s, 0) << "the workload format records no duration";
  }
}

TEST(WorkloadReader, ReadsSortsAndRebases) {
  expect_small_workload(read_trace(trace_data("workload_small.csv"), "", BadRowPolicy::Fail));
  expect_small_workload(read_trace(trace_data("workload_small_crlf.csv"), "", BadRowPolicy::Fail));
}

TEST(WorkloadReader, BadRows) {
  const std::string file = trace_data("workload_bad_rows.csv");
  const auto r = read_trace(file, "", BadRowPolicy::Skip);
  ASSERT_EQ(r.jobs.size(), 1u);
  EXPECT_EQ(r.jobs[0].id, "cifar10-0");
  const std::vector<std::pair<long, std::string>> expected = {
      {3, "unknown application 'resnet9000'"},
      {4, "duplicate job id 'cifar10-0' (first on line 2)"},
      {5, "time 'abc' is not a number"},
      {6, "num_replicas 0 is < 1"},
      {7, "batch_size 2 is smaller than num_replicas 4"},
      {8, "name is empty"},
      {9, "expected 5 comma-separated fields, found 4"},
  };
  ASSERT_EQ(r.skipped.size(), expected.size());
  for (std::size_t i = 0; i < expected.size(); ++i) {
    EXPECT_EQ(r.skipped[i].line, expected[i].first);
    EXPECT_EQ(r.skipped[i].reason, expected[i].second);
  }
  try {
    read_trace(file, "", BadRowPolicy::Fail);
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    // An application outside the catalog is filtered, not corrupt: Fail
    // stops at the first corrupt row after it.
    EXPECT_EQ(std::string(e.what()), file + ":4: duplicate job id 'cifar10-0' (first on line 2)");
  }
}

}  // namespace
}  // namespace vnsim
