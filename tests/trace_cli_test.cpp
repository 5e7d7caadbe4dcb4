// `vnsim trace` end to end: separate processes, outputs read back.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "command_support.hpp"
#include "shared_data.hpp"

namespace {

namespace fs = std::filesystem;
using vnsim::testing::slurp;

int run_cli(const std::string& args) {
  const std::string cmd = std::string(VNSIM_CLI_PATH) + " " + args;
  return WEXITSTATUS(std::system(cmd.c_str()));
}

class TraceCli : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("vnsim-trace-cli-" + std::to_string(::getpid()));
    fs::create_directories(dir_);
    std::ofstream jobs(dir_ / "in.jsonl");
    jobs << R"({"id":"a","submit_s":100,"gpus":1,"trace_duration_s":60,"status":"pass","vc":"x"})"
         << "\n"
         << R"({"id":"b","submit_s":200,"gpus":4,"trace_duration_s":7200,"status":"failed","vc":"y"})"
         << "\n"
         << R"({"id":"c","submit_s":400,"gpus":2,"trace_duration_s":30,"status":"killed","vc":"x"})"
         << "\n"
         << R"({"id":"d","submit_s":500,"gpus":8,"trace_duration_s":90,"vc":"x"})"
         << "\n";
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string p(const std::string& name) const { return (dir_ / name).string(); }
  fs::path dir_;
};

TEST_F(TraceCli, InspectPrintsStatisticsAndJson) {
  ASSERT_EQ(run_cli("trace inspect " + p("in.jsonl") + " > " + p("out.txt")), 0);
  const std::string text = slurp(p("out.txt"));
  EXPECT_NE(text.find("jobs                  4\n"), std::string::npos) << text;
  EXPECT_NE(text.find("time span             400 s"), std::string::npos) << text;
  ASSERT_EQ(run_cli("trace inspect " + p("in.jsonl") + " --json > " + p("out.json")), 0);
  const std::string json = slurp(p("out.json"));
  EXPECT_NE(json.find("\"failed\": 1"), std::string::npos) << json;
  EXPECT_NE(json.find("\"p50\": 75.0"), std::string::npos) << json;
}

TEST_F(TraceCli, ConvertAppliesFiltersAndListsDroppedJobs) {
  ASSERT_EQ(
      run_cli("trace convert " + p("in.jsonl") + " --to jsonl " + p("out.jsonl") +
              " --vc x --failed-jobs drop --arrival-scale 2 --skipped " + p("skipped.csv") + " --quiet"),
      0);
  const std::string out = slurp(p("out.jsonl"));
  EXPECT_NE(out.find("\"id\":\"a\""), std::string::npos) << out;
  EXPECT_EQ(out.find("\"id\":\"b\""), std::string::npos) << out;
  EXPECT_EQ(out.find("\"id\":\"c\""), std::string::npos) << out;
  EXPECT_NE(out.find("\"submit_s\":200"), std::string::npos) << out;  // (500 - 100) / 2
  const std::string skipped = slurp(p("skipped.csv"));
  EXPECT_NE(skipped.find("job 'b' dropped by --failed-jobs drop: status failed"), std::string::npos)
      << skipped;
  EXPECT_NE(skipped.find("job 'c' dropped by --failed-jobs drop: status killed"), std::string::npos)
      << skipped;
  // The pollux-philly output reads back as that format with the same jobs.
  ASSERT_EQ(
      run_cli("trace convert " + p("in.jsonl") + " --to pollux-philly --out " + p("out.csv") + " --quiet"),
      0);
  ASSERT_EQ(run_cli("trace inspect " + p("out.csv") + " --json > " + p("back.json")), 0);
  const std::string back = slurp(p("back.json"));
  EXPECT_NE(back.find("\"format\": \"pollux-philly\""), std::string::npos) << back;
  EXPECT_NE(back.find("\"jobs\": 4"), std::string::npos) << back;
  EXPECT_NE(back.find("\"span_s\": 400.0"), std::string::npos) << back;
}

TEST_F(TraceCli, GenerateIsDeterministicAndReplayRunsSyntheticKinds) {
  const std::string gen = "trace generate --kind helios --jobs 200 --seed 4 --diurnal-amplitude 0.5 --out ";
  ASSERT_EQ(run_cli(gen + p("g1.jsonl") + " > /dev/null"), 0);
  ASSERT_EQ(run_cli(gen + p("g2.jsonl") + " > /dev/null"), 0);
  EXPECT_FALSE(slurp(p("g1.jsonl")).empty());
  EXPECT_EQ(slurp(p("g1.jsonl")), slurp(p("g2.jsonl")));
  ASSERT_EQ(
      run_cli("trace generate --kind helios --jobs 200 --seed 5 --out " + p("g3.jsonl") + " > /dev/null"), 0);
  EXPECT_NE(slurp(p("g1.jsonl")), slurp(p("g3.jsonl")));
  ASSERT_EQ(
      run_cli("replay --cluster testbed --trace synthetic-pai:40 --max-gpus 4 --out " + p("r") + " --quiet"),
      0);
  EXPECT_FALSE(slurp(p("r/jobs.csv")).empty());
}

TEST_F(TraceCli, ClusterFromInventoryWritesALoadableSpec) {
  {
    std::ofstream inv(dir_ / "nodes.csv");
    inv << "sn,cpu_milli,memory_mib,gpu,model\nn0,1,1,0,\nn1,1,1,4,T4\nn2,1,1,8,V100M32\n";
  }
  ASSERT_EQ(run_cli("trace cluster --from " + p("nodes.csv") + " --out " + p("spec.json") + " > " +
                    p("msg.txt") + " 2> " + p("err.txt")),
            0);
  EXPECT_NE(slurp(p("msg.txt")).find("2 nodes, 12 GPUs"), std::string::npos) << slurp(p("msg.txt"));
  EXPECT_NE(slurp(p("err.txt")).find("nodes.csv:2: CPU-only machine 'n0'"), std::string::npos)
      << slurp(p("err.txt"));
  // Jobs beyond the inventory are rejected by the simulator with the reason.
  {
    std::ofstream big(dir_ / "big.jsonl");
    big << R"({"id":"e","submit_s":0,"gpus":16,"trace_duration_s":60})"
        << "\n"
        << R"({"id":"f","submit_s":5,"gpus":1,"trace_duration_s":60,"gpu_type":"A100"})"
        << "\n";
  }
  ASSERT_EQ(run_cli("replay --cluster " + p("spec.json") + " --trace " + p("big.jsonl") + " --out " + p("r") +
                    " --quiet"),
            0);
  const std::string jobs = slurp(p("r/jobs.csv"));
  EXPECT_NE(jobs.find("REJECTED,,\"requests 16 GPUs, cluster has 12\""), std::string::npos) << jobs;
  EXPECT_NE(jobs.find("REJECTED,,\"GPU type 'A100' not in cluster\""), std::string::npos) << jobs;
}

TEST_F(TraceCli, InspectOfAMachineInventoryDescribesTheMachines) {
  {
    std::ofstream inv(dir_ / "machines.csv");
    inv << "machineId, number of GPUs, single GPU mem\nm0,2, 12GB\nm1,8, 24GB\nm2,8, 24GB\n";
  }
  ASSERT_EQ(run_cli("trace inspect " + p("machines.csv") + " > " + p("out.txt") + " 2> " + p("err.txt")), 0)
      << slurp(p("err.txt"));
  const std::string text = slurp(p("out.txt"));
  EXPECT_NE(text.find("not a job trace"), std::string::npos) << text;
  EXPECT_NE(text.find("machines with GPUs    3\n"), std::string::npos) << text;
  EXPECT_NE(text.find("GPUs                  18\n"), std::string::npos) << text;
  EXPECT_NE(text.find("  8                     2\n"), std::string::npos) << text;
  ASSERT_EQ(run_cli("trace inspect " + p("machines.csv") + " --json > " + p("out.json")), 0);
  EXPECT_NE(slurp(p("out.json")).find("\"8\": 2"), std::string::npos) << slurp(p("out.json"));
}

TEST_F(TraceCli, BadInvocationsExitWith2AndSayWhy) {
  EXPECT_EQ(run_cli("trace frobnicate 2> " + p("e1")), 2);
  EXPECT_NE(slurp(p("e1")).find("unknown sub-command 'frobnicate'"), std::string::npos);
  EXPECT_EQ(run_cli("trace convert " + p("in.jsonl") + " --to csv " + p("o") + " 2> " + p("e2")), 2);
  EXPECT_NE(slurp(p("e2")).find("--to: expected jsonl or pollux-philly"), std::string::npos);
  EXPECT_EQ(run_cli("trace convert " + p("in.jsonl") + " --to jsonl " + p("o") + " --arrival-scale 0 2> " +
                    p("e3")),
            2);
  EXPECT_NE(slurp(p("e3")).find("--arrival-scale"), std::string::npos);
  EXPECT_EQ(run_cli("trace generate --kind nope --jobs 3 --out " + p("o") + " 2> " + p("e4")), 2);
  EXPECT_NE(slurp(p("e4")).find("unknown synthetic trace kind 'nope'"), std::string::npos);
}

TEST(TraceCliShared, InspectRunsOnEveryFileInShared) {
  VNSIM_REQUIRE_SHARED(shared);
  for (const char* f : {"philly_2017_pollux_full.csv", "philly_2017_pollux_sample_2k.csv",
                        "philly_2017_pollux_sample_1week.csv", "pollux_philly_derived_workload-6.csv",
                        "alibaba_gpu_2023_openb_sample_2k.csv"}) {
    const std::string out =
        (fs::temp_directory_path() / ("vnsim-inspect-" + std::to_string(::getpid()))).string();
    ASSERT_EQ(run_cli("trace inspect " + shared + "/traces/" + f + " > " + out + " 2> /dev/null"), 0) << f;
    EXPECT_NE(slurp(out).find("GPUs per job"), std::string::npos) << f;
    fs::remove(out);
  }
  for (const char* f : {"philly_2017_machine_list_552.csv", "alibaba_pai_2020_machine_spec_1897.csv",
                        "alibaba_gpu_2023_openb_nodes_1523.csv"}) {
    const std::string out =
        (fs::temp_directory_path() / ("vnsim-inspect-" + std::to_string(::getpid()))).string();
    ASSERT_EQ(run_cli("trace inspect " + shared + "/traces/" + f + " > " + out + " 2> /dev/null"), 0) << f;
    EXPECT_NE(slurp(out).find("machines with GPUs"), std::string::npos) << f;
    fs::remove(out);
  }
  // Philly's machine list (msr-fiddle/philly-traces cluster_machine_list, computed):
  // 321 machines with 2 GPUs and 231 with 8.
  const std::string out = (fs::temp_directory_path() / ("vnsim-inv-" + std::to_string(::getpid()))).string();
  ASSERT_EQ(run_cli("trace inspect " + shared + "/traces/philly_2017_machine_list_552.csv > " + out), 0);
  EXPECT_NE(slurp(out).find("GPUs                  2490\n"), std::string::npos) << slurp(out);
  fs::remove(out);
}

}  // namespace
