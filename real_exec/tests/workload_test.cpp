#include "vnsim/real_exec/workload.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "vnsim/core/error.hpp"

namespace vnsim::real_exec {
namespace {

std::string write_temp(const std::string& name, const std::string& text) {
  const auto path = std::filesystem::temp_directory_path() / ("vnexec_" + std::to_string(::getpid()) + name);
  std::ofstream(path) << text;
  return path.string();
}

TEST(Workload, TraceRoundTripsAndScalesSubmitTimes) {
  const std::string path = write_temp(
      "a.jsonl",
      R"({"id": "b", "submit_s": 4, "model": "cifar10", "gpus": 2, "virtual_nodes": 4, "global_batch": 64, "iterations": 7}
{"id": "a", "submit_s": 2, "model": "ncf", "gpus": 1, "global_batch": 32, "iterations": 3}
)");
  const auto jobs = read_executor_trace(path, 0.5);
  ASSERT_EQ(jobs.size(), 2u);
  EXPECT_EQ(jobs[0].id, "a");  // sorted by submit time
  EXPECT_EQ(jobs[0].submit_s, 1);
  EXPECT_EQ(jobs[1].submit_s, 2);
  EXPECT_EQ(jobs[1].effective_virtual_nodes(), 4);
  const std::string again = write_temp("b.jsonl", "");
  write_executor_trace(again, jobs);
  const auto back = read_executor_trace(again, 1.0);
  EXPECT_EQ(back[1].id, "b");
  EXPECT_EQ(back[1].submit_s, 2);
  EXPECT_EQ(back[1].iterations, 7);
}

TEST(Workload, IncompleteJobIsAnErrorNamingFileLineAndField) {
  const std::string path = write_temp(
      "c.jsonl",
      "\n{\"id\": \"x\", \"submit_s\": 0, \"model\": \"ncf\", \"gpus\": 1, \"global_batch\": 8}\n");
  try {
    read_executor_trace(path, 1.0);
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find(path + ":2: missing field 'iterations'"), std::string::npos)
        << e.what();
  }
}

TEST(Workload, LayoutAndParameterServerJobsAreRefusedNotRunAsDataParallel) {
  const std::string path = write_temp(
      "d.jsonl",
      R"({"id": "x", "submit_s": 0, "model": "cifar10", "gpus": 2, "global_batch": 8, "iterations": 3, "ps_servers": 1}
)");
  try {
    read_executor_trace(path, 1.0);
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find(path + ":1: vnexec runs data-parallel jobs on whole workers only"),
              std::string::npos)
        << e.what();
  }
}

TEST(Workload, WrittenTraceKeepsEveryJobSpecField) {
  // The writer is the traces module's jsonl writer: fields the executor
  // does not use (status, trace duration, VC, user) survive the round trip.
  const std::string path = write_temp(
      "e.jsonl",
      R"({"id": "a", "submit_s": 1, "model": "ncf", "gpus": 1, "global_batch": 32, "iterations": 3, "gpu_type": "T4", "status": "pass", "trace_duration_s": 12.5, "vc": "v1", "user": "u1"}
)");
  const auto jobs = read_executor_trace(path, 1.0);
  const std::string again = write_temp("f.jsonl", "");
  write_executor_trace(again, jobs);
  const auto back = read_executor_trace(again, 1.0);
  ASSERT_EQ(back.size(), 1u);
  EXPECT_EQ(back[0].gpu_type, std::optional<std::string>("T4"));
  EXPECT_EQ(back[0].status, jobs[0].status);
  EXPECT_EQ(back[0].trace_duration_s, 12.5);
  EXPECT_EQ(back[0].vc, "v1");
  EXPECT_EQ(back[0].user, "u1");
}

TEST(Workload, EmulatedWorkFollowsTheCatalogLine) {
  ModelParams m;
  m.alpha_compute_s = 0.01;
  m.beta_compute_s = 0.002;
  m.gradient_bytes = 8e6;
  EmulationScale s;
  s.flops_per_reference_second = 1e9;
  s.gradient_fraction = 1e-3;
  EXPECT_EQ(emulated_parameter_count(m, s), 1000u);  // 8e6 * 1e-3 / 8 bytes
  const JobShape shape = emulated_shape(m, s, 64, {2});
  EXPECT_DOUBLE_EQ(shape.flops_fixed, 1e7);
  EXPECT_DOUBLE_EQ(shape.flops_per_sample, 2e6);
}

}  // namespace
}  // namespace vnsim::real_exec
