#include <gtest/gtest.h>

#include <fstream>

#include "trace_test_support.hpp"
#include "vnsim/core/error.hpp"
#include "vnsim/traces/readers.hpp"

namespace vnsim {
namespace {

using testing::trace_data;

std::vector<JobSpec> sample_jobs() {
  JobSpec a;
  a.id = "a";
  a.submit_s = 0;
  a.model = "cifar10";
  a.gpus = 4;
  a.virtual_nodes = 8;
  a.global_batch = 1024;
  a.iterations = 1234567890123LL;
  a.gpu_type = "V100";
  a.status = TraceStatus::Failed;
  a.trace_duration_s = 0.1;  // not exactly representable: must still round-trip
  a.vc = "6214e9";
  a.user = "u7";
  JobSpec b;
  b.id = "b \"quoted\", with comma";
  b.submit_s = 1.0 / 3.0;
  b.gpus = 1;
  JobSpec c = b;
  c.id = "c";
  c.submit_s = 1e6 + 0.5;
  c.status = TraceStatus::Pass;
  return {a, b, c};
}

bool same(const JobSpec& x, const JobSpec& y) {
  return x.id == y.id && x.submit_s == y.submit_s && x.model == y.model && x.gpus == y.gpus &&
         x.virtual_nodes == y.virtual_nodes && x.global_batch == y.global_batch &&
         x.iterations == y.iterations && x.gpu_type == y.gpu_type && x.status == y.status &&
         x.trace_duration_s == y.trace_duration_s && x.vc == y.vc && x.user == y.user;
}

TEST(Jsonl, WriteThenReadGivesTheSameJobs) {
  const auto jobs = sample_jobs();
  const std::string path = ::testing::TempDir() + "vnsim_jsonl_roundtrip.jsonl";
  write_jsonl(path, jobs);
  const auto r = read_trace(path, "", BadRowPolicy::Fail);
  EXPECT_EQ(r.format, "jsonl");
  ASSERT_EQ(r.jobs.size(), jobs.size());
  for (std::size_t i = 0; i < jobs.size(); ++i)
    EXPECT_TRUE(same(r.jobs[i], jobs[i])) << to_jsonl_line(r.jobs[i]);
  // Writing what was read gives the same bytes.
  const std::string again = ::testing::TempDir() + "vnsim_jsonl_roundtrip2.jsonl";
  write_jsonl(again, r.jobs);
  std::ifstream f1(path), f2(again);
  EXPECT_EQ(std::string(std::istreambuf_iterator<char>(f1), {}),
            std::string(std::istreambuf_iterator<char>(f2), {}));
}

TEST(Jsonl, LineLayout) {
  EXPECT_EQ(to_jsonl_line(sample_jobs()[2]),
            R"({"id":"c","submit_s":1000000.5,"model":"","gpus":1,"virtual_nodes":0,"global_batch":0,)"
            R"("iterations":0,"status":"pass","vc":""})");
}

TEST(Jsonl, LayoutFieldsRoundTripAndArePrintedOnlyWhenSet) {
  JobSpec j;
  j.id = "gpt";
  j.model = "megatron-1t";
  j.gpus = 3072;
  j.global_batch = 3072;
  j.tp = 8;
  j.pp = 64;
  j.micro_batch_size = 2;
  const std::string line = to_jsonl_line(j);
  EXPECT_NE(line.find(R"("tp":8,"pp":64,"micro_batch_size":2)"), std::string::npos) << line;
  const std::string path = ::testing::TempDir() + "vnsim_jsonl_layout.jsonl";
  write_jsonl(path, {j});
  const auto r = read_trace(path, "", BadRowPolicy::Fail);
  ASSERT_EQ(r.jobs.size(), 1u);
  EXPECT_EQ(r.jobs[0].model, "megatron-1t");
  EXPECT_EQ(r.jobs[0].tp, 8);
  EXPECT_EQ(r.jobs[0].pp, 64);
  EXPECT_EQ(r.jobs[0].micro_batch_size, 2);
  EXPECT_EQ(to_jsonl_line(sample_jobs()[2]).find("tp"), std::string::npos);
}

TEST(Jsonl, GpuShareRoundTripsAndIsPrintedOnlyWhenSet) {
  JobSpec j;
  j.id = "shared";
  j.gpus = 1;
  j.gpu_milli = 460;
  const std::string line = to_jsonl_line(j);
  EXPECT_NE(line.find(R"("gpus":1,"gpu_milli":460,)"), std::string::npos) << line;
  const std::string path = ::testing::TempDir() + "vnsim_jsonl_share.jsonl";
  write_jsonl(path, {j});
  const auto r = read_trace(path, "", BadRowPolicy::Fail);
  ASSERT_EQ(r.jobs.size(), 1u);
  EXPECT_EQ(r.jobs[0].gpu_milli, 460);
  EXPECT_EQ(to_jsonl_line(r.jobs[0]), line);
  EXPECT_EQ(to_jsonl_line(sample_jobs()[2]).find("gpu_milli"), std::string::npos);
}

TEST(Jsonl, BadRows) {
  const std::string file = trace_data("jobs_bad_rows.jsonl");
  const auto r = read_trace(file, "", BadRowPolicy::Skip);
  ASSERT_EQ(r.jobs.size(), 2u);
  EXPECT_EQ(r.jobs[0].id, "j");
  EXPECT_DOUBLE_EQ(r.jobs[0].submit_s, 0);
  EXPECT_EQ(r.jobs[0].status, TraceStatus::Killed);
  EXPECT_EQ(r.jobs[0].gpu_type, std::optional<std::string>("V100"));
  EXPECT_DOUBLE_EQ(r.jobs[0].trace_duration_s, 30.5);
  EXPECT_EQ(r.jobs[0].vc, "v1");
  EXPECT_EQ(r.jobs[0].user, "u1");
  EXPECT_EQ(r.jobs[1].id, "a");
  EXPECT_DOUBLE_EQ(r.jobs[1].submit_s, 4.75);
  EXPECT_EQ(r.jobs[1].iterations, 100);
  EXPECT_LT(r.jobs[1].trace_duration_s, 0);

  const std::vector<std::pair<long, std::string>> expected = {
      {2, "unknown field 'gpu'"},
      {3, "field 'gpus' must be >= 1"},
      {4, "field 'submit_s' is negative"},
      {5, "duplicate job id 'a' (first on line 1)"},
      {6, "unknown model 'foo'"},
      {7, "unknown trace status 'weird'"},
      {8, "invalid JSON"},
      {9, "expected a JSON object"},
      {10, "missing field 'id'"},
      {11, "field 'submit_s' must be a number"},
      {12, "field 'gpus' must be an integer"},
      {15, "invalid JSON: number overflow"},  // nlohmann throws out_of_range, not parse_error
  };
  ASSERT_EQ(r.skipped.size(), expected.size());
  for (std::size_t i = 0; i < expected.size(); ++i) {
    EXPECT_EQ(r.skipped[i].line, expected[i].first);
    EXPECT_EQ(r.skipped[i].reason.rfind(expected[i].second, 0), 0u) << r.skipped[i].reason;
  }
}

TEST(Jsonl, WriteToAnUnwritablePathNamesIt) {
  const std::string path = trace_data("no_such_dir/out.jsonl");
  try {
    write_jsonl(path, sample_jobs());
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()), path + ": cannot open for writing");
  }
}

}  // namespace
}  // namespace vnsim
