// `vnsim export` (docs/OUTPUTS.md, "vnsim export"): Batsim's jobs.csv and a
// Chrome trace-event timeline from a replay's output folder, hand-checked on
// a small hand-written folder (a preemption, a resize, a shared GPU), checked
// against summary.json on real replays, and bad input exits 2 with file:line.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "cli_process_test.hpp"

namespace {

namespace fs = std::filesystem;
using vnsim::testing::slurp;

const char* kJobsHeader =
    "job_id,submission_time,requested_number_of_resources,starting_time,finish_time,waiting_time,"
    "execution_time,turnaround_time,stretch,final_state,allocated_resources,reason,restarts,model,iterations,"
    "gpu_seconds,lost_work_s,energy_j,cost_usd,vc,virtual_nodes\n";

class ExportCli : public vnsim::testing::CliProcessTest {
 protected:
  ExportCli() : CliProcessTest("vnsim-export-") {}
  void write(const std::string& name, const std::string& text) const {
    fs::create_directories((dir_ / name).parent_path());
    std::ofstream(dir_ / name, std::ios::binary) << text;
  }
  // Job a runs on GPUs 0-1, is preempted at 10 s and restarts on 2-3 at
  // 30 s; b starts on 0-1 at 10 s and is resized to 0-3 at 20 s; c shares
  // GPU 0 with b at half a GPU; d is rejected.
  void write_small_run(const std::string& d) const {
    write(d + "/allocations.csv",
          "time,job_id,event,allocated_resources,gpu_milli,cause\n"
          "0.000000,a,take,0-1,1000,start\n"
          "10.000000,a,release,0-1,1000,preempt\n"
          "10.000000,b,take,0-1,500,start\n"
          "12.000000,c,take,0,500,start\n"
          "15.000000,c,release,0,500,complete\n"
          "20.000000,b,release,0-1,500,resize\n"
          "20.000000,b,take,0-3,500,resize\n"
          "30.000000,b,release,0-3,500,complete\n"
          "30.000000,a,take,2-3,1000,start\n"
          "40.500000,a,release,2-3,1000,complete\n");
    write(d + "/jobs.csv",
          std::string(kJobsHeader) +
              "a,0.000000,2,0.000000,40.500000,0.000000,40.500000,40.500000,1.000000,COMPLETED,2-3,\"\",1,"
              "resnet50,100,41.000000,0.000000,10.000000,0.000000,,2\n"
              "b,10.000000,2,10.000000,30.000000,0.000000,20.000000,20.000000,1.000000,COMPLETED,0-3,\"\",1,"
              "\"bert,large\",100,30.000000,0.000000,5.000000,0.000000,,2\n"
              "c,12.000000,1,12.000000,15.000000,0.000000,3.000000,3.000000,1.000000,COMPLETED,0,\"\",0,"
              "resnet50,10,1.500000,0.000000,1.000000,0.000000,,1\n"
              "d,13.000000,64,,,,,,,REJECTED,,\"requests 64 GPUs, cluster has 4\",0,resnet50,10,0.000000,"
              "0.000000,0.000000,0.000000,,64\n");
    write(d + "/summary.json", R"({"run": {"trace": "hand-written", "total_gpus": 4}})");
  }
};

TEST_F(ExportCli, BatsimJobsHaveBatsimColumnsAndStates) {
  write_small_run("r");
  ASSERT_EQ(vnsim("export " + p("r") + " --format batsim"), 0) << err();
  EXPECT_EQ(
      out(),
      "job_id,workload_name,profile,submission_time,requested_number_of_resources,requested_time,success,"
      "final_state,starting_time,execution_time,finish_time,waiting_time,turnaround_time,stretch,"
      "allocated_resources,consumed_energy,metadata\n"
      "a,hand-written,resnet50,0.000000,2,-1,1,COMPLETED_SUCCESSFULLY,0.000000,40.500000,40.500000,"
      "0.000000,40.500000,1.000000,2-3,10.000000,\n"
      "b,hand-written,\"bert,large\",10.000000,2,-1,1,COMPLETED_SUCCESSFULLY,10.000000,20.000000,"
      "30.000000,0.000000,20.000000,1.000000,0-3,5.000000,\n"
      "c,hand-written,resnet50,12.000000,1,-1,1,COMPLETED_SUCCESSFULLY,12.000000,3.000000,15.000000,"
      "0.000000,3.000000,1.000000,0,1.000000,\n"
      "d,hand-written,resnet50,13.000000,64,-1,0,REJECTED,,,,,,,,0.000000,"
      "\"requests 64 GPUs, cluster has 4\"\n");
  EXPECT_EQ(err(), "");
}

TEST_F(ExportCli, ChromeTraceHasASlicePerGpuHeldAndInstantsForPreemptions) {
  write_small_run("r");
  ASSERT_EQ(vnsim("export " + p("r") + " --format chrome --out " + p("t.json")), 0) << err();
  EXPECT_EQ(out(), "");
  const nlohmann::json trace = nlohmann::json::parse(slurp(dir_ / "t.json"));
  std::map<int, std::string> track;  // tid -> name
  std::vector<nlohmann::json> slices, instants;
  for (const auto& e : trace.at("traceEvents")) {
    if (e.at("ph") == "M" && e.at("name") == "thread_name") track[e.at("tid")] = e.at("args").at("name");
    if (e.at("ph") == "X") slices.push_back(e);
    if (e.at("ph") == "i") instants.push_back(e);
  }
  // GPUs 0-3, and a second lane on GPU 0 where c shares it with b.
  EXPECT_EQ(track, (std::map<int, std::string>{
                       {0, "GPU 0"}, {1, "GPU 0 (shared, 2)"}, {2, "GPU 1"}, {3, "GPU 2"}, {4, "GPU 3"}}));
  ASSERT_EQ(slices.size(), 11u);  // a: 2 + 2, b: 2 + 4, c: 1
  // a's first run on GPU 0, hand-computed: 0 to 10 s, ended by a preemption.
  EXPECT_EQ(slices[0].dump(),
            R"({"args":{"from":"start","gpu_milli":1000,"job_id":"a","to":"preempt"},"cat":"allocation",)"
            R"("dur":10000000,"name":"a","ph":"X","pid":0,"tid":0,"ts":0})");
  // c on GPU 0's second lane, 12 to 15 s.
  EXPECT_EQ(slices[2].at("name"), "c");
  EXPECT_EQ(slices[2].at("tid"), 1);
  EXPECT_EQ(slices[2].at("ts"), 12000000);
  EXPECT_EQ(slices[2].at("dur"), 3000000);
  // b's resize: its slice on GPU 3 runs 20 to 30 s, from the resize to its completion.
  const auto b3 = std::find_if(slices.begin(), slices.end(),
                               [](const auto& s) { return s.at("name") == "b" && s.at("tid") == 4; });
  ASSERT_NE(b3, slices.end());
  EXPECT_EQ(b3->at("ts"), 20000000);
  EXPECT_EQ(b3->at("dur"), 10000000);
  EXPECT_EQ(b3->at("args").at("from"), "resize");
  EXPECT_EQ(b3->at("args").at("to"), "complete");
  // The preemption of a: one instant on each GPU it held.
  ASSERT_EQ(instants.size(), 2u);
  EXPECT_EQ(instants[0].at("name"), "preempt a");
  EXPECT_EQ(instants[0].at("ts"), 10000000);
  EXPECT_EQ(instants[0].at("tid"), 0);
  EXPECT_EQ(instants[1].at("tid"), 2);
  // The GPU time of the slices is the jobs' gpu_seconds: a 41, b 30, c 1.5.
  double gpu_s = 0;
  for (const auto& s : slices)
    gpu_s += s.at("dur").get<double>() * s.at("args").at("gpu_milli").get<double>();
  EXPECT_DOUBLE_EQ(gpu_s / 1e9, 72.5);
}

// On real replays (tiresias preempts, pollux resizes) the slices add up to
// summary.json's GPU-seconds and batsim has a row per job.
TEST_F(ExportCli, RealReplaysExportWholeTimelines) {
  for (const std::string policy : {"tiresias", "pollux"}) {
    const std::string d = p("run-" + policy);
    ASSERT_EQ(
        vnsim("replay --cluster testbed --trace synthetic:60 --policy " + policy + " --quiet --out " + d), 0)
        << err();
    const std::string timeline = slurp(fs::path(d) / "allocations.csv");
    ASSERT_EQ(vnsim("export " + d + " --format chrome --out " + p(policy + ".json")), 0) << err();
    const nlohmann::json trace = nlohmann::json::parse(slurp(dir_ / (policy + ".json")));
    double gpu_s = 0;
    std::size_t instants = 0;
    for (const auto& e : trace.at("traceEvents")) {
      if (e.at("ph") == "X")
        gpu_s += e.at("dur").get<double>() * e.at("args").at("gpu_milli").get<double>() / 1e9;
      if (e.at("ph") == "i") ++instants;
    }
    const nlohmann::json summary = nlohmann::json::parse(slurp(fs::path(d) / "summary.json"));
    EXPECT_NEAR(gpu_s, summary.at("gpu_seconds").get<double>(), 1e-3) << policy;
    EXPECT_EQ(instants > 0, timeline.find(",preempt\n") != std::string::npos) << policy;
    ASSERT_EQ(vnsim("export " + d + " --format batsim"), 0) << err();
    const std::string jobs = slurp(fs::path(d) / "jobs.csv"), batsim = out();
    EXPECT_EQ(std::count(batsim.begin(), batsim.end(), '\n'), std::count(jobs.begin(), jobs.end(), '\n'));
  }
  EXPECT_NE(slurp(dir_ / "run-tiresias" / "allocations.csv").find(",preempt\n"), std::string::npos);
  EXPECT_NE(slurp(dir_ / "run-pollux" / "allocations.csv").find(",resize\n"), std::string::npos);
}

TEST_F(ExportCli, BadInputExitsTwoWithFileLineAndReason) {
  write_small_run("r");
  fs::remove(dir_ / "r" / "allocations.csv");
  EXPECT_EQ(vnsim("export " + p("r") + " --format chrome"), 2);
  EXPECT_NE(err().find("r/allocations.csv: cannot read"), std::string::npos) << err();

  write_small_run("r");
  std::string text = slurp(dir_ / "r" / "allocations.csv");
  text.replace(text.find("10.000000,b,take,0-1,500,start"), 30, "10.000000,b,take,0-1,500");
  write("r/allocations.csv", text);
  EXPECT_EQ(vnsim("export " + p("r") + " --format chrome"), 2);
  EXPECT_NE(err().find("r/allocations.csv:4: expected 6 fields, found 5"), std::string::npos) << err();

  write_small_run("r");
  text = slurp(dir_ / "r" / "allocations.csv");
  text.erase(text.find("0.000000,a,take,0-1,1000,start\n"), 31);  // a releases what it never took
  write("r/allocations.csv", text);
  EXPECT_EQ(vnsim("export " + p("r") + " --format chrome"), 2);
  EXPECT_NE(err().find("r/allocations.csv:2: job 'a' releases GPU 0, which it does not hold"),
            std::string::npos)
      << err();

  write_small_run("r");
  text = slurp(dir_ / "r" / "allocations.csv");
  text.erase(text.find("40.500000"));  // a keeps GPUs 2-3
  write("r/allocations.csv", text);
  EXPECT_EQ(vnsim("export " + p("r") + " --format chrome"), 2);
  EXPECT_NE(err().find("r/allocations.csv:10: job 'a' takes GPU 2 and never releases it"), std::string::npos)
      << err();

  write_small_run("r");
  text = slurp(dir_ / "r" / "jobs.csv");
  text.replace(text.find("REJECTED"), 8, "KILLED");
  write("r/jobs.csv", text);
  EXPECT_EQ(vnsim("export " + p("r") + " --format batsim"), 2);
  EXPECT_NE(err().find("r/jobs.csv:5: final_state 'KILLED' is neither COMPLETED nor REJECTED"),
            std::string::npos)
      << err();

  EXPECT_EQ(vnsim("export " + p("r") + " --format paje"), 2);
  EXPECT_NE(err().find("--format: expected batsim or chrome"), std::string::npos) << err();
  EXPECT_EQ(vnsim("export " + p("nowhere") + " --format batsim"), 2);
  EXPECT_EQ(vnsim("export " + p("r") + " --format chrome --out " + p("r")), 2);
  EXPECT_NE(err().find("is a folder"), std::string::npos) << err();
}

// --out is written under a temporary name and renamed into place: a failed
// export leaves a previous file whole and no partial file beside it.
TEST_F(ExportCli, FailedExportLeavesAPreviousFileUntouched) {
  write_small_run("r");
  ASSERT_EQ(vnsim("export " + p("r") + " --format chrome --out " + p("t.json")), 0) << err();
  const std::string before = slurp(dir_ / "t.json");
  write("r/allocations.csv", slurp(dir_ / "r" / "allocations.csv") + "41,a,release,2-3,1000,complete\n");
  EXPECT_EQ(vnsim("export " + p("r") + " --format chrome --out " + p("t.json")), 2);
  EXPECT_EQ(slurp(dir_ / "t.json"), before);
  for (const auto& entry : fs::directory_iterator(dir_))
    EXPECT_EQ(entry.path().filename().string().find(".partial-"), std::string::npos) << entry.path();
}

}  // namespace
