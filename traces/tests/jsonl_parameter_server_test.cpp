// Parameter-server fields of the jsonl format (docs/TRACES.md): round trip,
// printed only for PS jobs, and bad values rejected with file and line.
#include <gtest/gtest.h>

#include <fstream>

#include "vnsim/core/error.hpp"
#include "vnsim/traces/readers.hpp"

namespace vnsim {
namespace {

std::string write_lines(const std::string& name, const std::string& text) {
  const std::string path = ::testing::TempDir() + name;
  std::ofstream(path) << text;
  return path;
}

TEST(JsonlParameterServer, FieldsRoundTripAndArePrintedOnlyForPsJobs) {
  JobSpec j;
  j.id = "ps";
  j.model = "cifar10";
  j.gpus = 9;
  j.global_batch = 256;
  j.iterations = 100;
  j.ps.servers = 1;
  j.ps.async = true;
  j.ps.straggler_probability = 0.25;
  j.ps.straggler_min_slowdown = 1.5;
  j.ps.straggler_max_slowdown = 3;
  j.ps.straggler_seed = 42;
  const std::string line = to_jsonl_line(j);
  EXPECT_NE(line.find(R"("ps_servers":1,"ps_mode":"async","straggler_probability":0.25,)"
                      R"("straggler_min_slowdown":1.5,"straggler_max_slowdown":3.0,"straggler_seed":42)"),
            std::string::npos)
      << line;
  const std::string path = ::testing::TempDir() + "vnsim_jsonl_ps.jsonl";
  write_jsonl(path, {j});
  const auto r = read_trace(path, "", BadRowPolicy::Fail);
  ASSERT_EQ(r.jobs.size(), 1u);
  const ParameterServerSpec& ps = r.jobs[0].ps;
  EXPECT_EQ(ps.servers, 1);
  EXPECT_TRUE(ps.async);
  EXPECT_EQ(ps.straggler_probability, 0.25);
  EXPECT_EQ(ps.straggler_min_slowdown, 1.5);
  EXPECT_EQ(ps.straggler_max_slowdown, 3.0);
  EXPECT_EQ(ps.straggler_seed, 42u);
  EXPECT_EQ(to_jsonl_line(r.jobs[0]), line);

  JobSpec plain = j;
  plain.ps = ParameterServerSpec{};
  EXPECT_EQ(to_jsonl_line(plain).find("ps_"), std::string::npos);
  EXPECT_EQ(to_jsonl_line(plain).find("straggler"), std::string::npos);
}

TEST(JsonlParameterServer, DefaultsAreSynchronousWithoutStragglers) {
  const std::string path =
      write_lines("vnsim_jsonl_ps_default.jsonl", R"({"id":"a","submit_s":0,"gpus":4,"ps_servers":2})"
                                                  "\n");
  const auto r = read_trace(path, "", BadRowPolicy::Fail);
  ASSERT_EQ(r.jobs.size(), 1u);
  EXPECT_EQ(r.jobs[0].ps.servers, 2);
  EXPECT_FALSE(r.jobs[0].ps.async);
  EXPECT_EQ(r.jobs[0].ps.straggler_probability, 0.0);
  EXPECT_EQ(r.jobs[0].ps.straggler_min_slowdown, 1.0);
  EXPECT_EQ(r.jobs[0].ps.straggler_max_slowdown, 1.0);
}

void expect_row_error(const std::string& row, const std::string& reason) {
  const std::string path = write_lines("vnsim_jsonl_ps_bad.jsonl", R"({"id":"ok","submit_s":0,"gpus":2})"
                                                                   "\n" +
                                                                       row + "\n");
  try {
    read_trace(path, "", BadRowPolicy::Fail);
    ADD_FAILURE() << "accepted " << row;
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()), path + ":2: " + reason);
  }
}

TEST(JsonlParameterServer, BadValuesNameFileLineAndReason) {
  expect_row_error(R"({"id":"b","submit_s":0,"gpus":2,"ps_servers":1,"ps_mode":"lazy"})",
                   R"(field 'ps_mode' must be "sync" or "async", got "lazy")");
  expect_row_error(R"({"id":"b","submit_s":0,"gpus":2,"ps_servers":-1})", "field 'ps_servers' must be >= 0");
  expect_row_error(R"({"id":"b","submit_s":0,"gpus":2,"straggler_probability":1.5})",
                   "field 'straggler_probability' must be in [0, 1]");
  expect_row_error(
      R"({"id":"b","submit_s":0,"gpus":2,"straggler_min_slowdown":2,"straggler_max_slowdown":1.5})",
      "need 1 <= straggler_min_slowdown <= straggler_max_slowdown");
  expect_row_error(R"({"id":"b","submit_s":0,"gpus":2,"straggler_min_slowdown":0.5})",
                   "need 1 <= straggler_min_slowdown <= straggler_max_slowdown");
}

}  // namespace
}  // namespace vnsim
