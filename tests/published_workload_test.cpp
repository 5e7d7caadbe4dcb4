// Published workloads replayed as their papers ran them, with default flags
// (docs/POLICIES.md, "Cross-check with published results"): a batch that
// does not fit its GPU runs with gradient accumulation (jobs.csv
// `virtual_nodes`), and every job completes.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "command_support.hpp"
#include "shared_data.hpp"

namespace {

namespace fs = std::filesystem;
using vnsim::testing::exit_code;
using vnsim::testing::slurp;

class PublishedWorkload : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("vnsim-published-workload-" + std::to_string(::getpid()));
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  int replay(const std::string& trace, const std::string& policy) {
    return exit_code(std::string(VNSIM_CLI_PATH) + " replay --cluster pollux-16x4 --trace " + trace +
                     " --policy " + policy + " --out " + (dir_ / "out").string() + " --quiet 2> " +
                     (dir_ / "err.txt").string());
  }
  // jobs.csv rows as cells (no quoted commas in these outputs but `reason`).
  std::vector<std::vector<std::string>> rows() const {
    std::istringstream in(slurp(dir_ / "out" / "jobs.csv"));
    std::vector<std::vector<std::string>> out;
    std::string line;
    while (std::getline(in, line)) {
      std::vector<std::string> cells;
      std::istringstream l(line);
      std::string cell;
      while (std::getline(l, cell, ',')) cells.push_back(cell);
      if (!line.empty() && line.back() == ',') cells.emplace_back();
      out.push_back(cells);
    }
    return out;
  }
  fs::path dir_;
};

// cifar10 at 2048 on 1 GPU: 2048 samples > 1024 (the model's largest
// micro-batch, a T4 holds 1092), so 2 micro-batches per step. imagenet at
// 3200 on 4 GPUs: 800 per GPU > 200, so 4 per GPU, V = 16. yolov3 at 8 on 1
// GPU fits: V = 1.
TEST_F(PublishedWorkload, BatchesThatDoNotFitRunWithAccumulation) {
  std::ofstream(dir_ / "w.csv") << "name,time,application,num_replicas,batch_size\n"
                                   "cifar10-0,0,cifar10,1,2048\n"
                                   "imagenet-1,10,imagenet,4,3200\n"
                                   "yolov3-2,20,yolov3,1,8\n";
  ASSERT_EQ(replay((dir_ / "w.csv").string() + " --format pollux-workload", "fifo"), 0)
      << slurp(dir_ / "err.txt");
  const auto r = rows();
  ASSERT_EQ(r.size(), 4u);
  ASSERT_EQ(r[0].back(), "virtual_nodes");
  const std::vector<std::string> want = {"2", "16", "1"};
  for (std::size_t i = 1; i < r.size(); ++i) {
    EXPECT_EQ(r[i][9], "COMPLETED") << r[i][0];
    EXPECT_EQ(r[i].back(), want[i - 1]) << r[i][0];
  }
}

TEST_F(PublishedWorkload, PolluxWorkload6CompletesEveryJobUnderPolluxWithDefaultFlags) {
  VNSIM_REQUIRE_SHARED(shared);
  ASSERT_EQ(replay(shared + "/traces/pollux_philly_derived_workload-6.csv", "pollux"), 0)
      << slurp(dir_ / "err.txt");
  const std::string summary = slurp(dir_ / "out" / "summary.json");
  EXPECT_NE(summary.find("\"completed\": 160"), std::string::npos) << summary;
  EXPECT_NE(summary.find("\"rejected\": 0"), std::string::npos) << summary;
}

TEST_F(PublishedWorkload, CalibrateHasHelpAndBadInputExitsTwo) {
  const std::string vnsim = VNSIM_CLI_PATH;
  const std::string err = (dir_ / "err.txt").string();
  EXPECT_EQ(exit_code(vnsim + " calibrate --help > /dev/null"), 0);
  EXPECT_EQ(exit_code(vnsim + " calibrate --cluster pollux-16x4 --pollux-profiles " +
                      (dir_ / "none").string() + " 2> " + err),
            2);
  EXPECT_NE(slurp(err).find("none: not a folder"), std::string::npos) << slurp(err);
  fs::create_directories(dir_ / "p" / "cifar10");
  std::ofstream(dir_ / "p" / "cifar10" / "placements.csv") << "placement,local_bsz,step_time\n4,64,zero\n";
  EXPECT_EQ(exit_code(vnsim + " calibrate --cluster pollux-16x4 --pollux-profiles " + (dir_ / "p").string() +
                      " 2> " + err),
            2);
  EXPECT_NE(slurp(err).find("placements.csv:2: step_time 'zero' must be a number > 0"), std::string::npos)
      << slurp(err);
  // Overlap fractions are written only when they were fitted.
  EXPECT_EQ(exit_code(vnsim + " calibrate --cluster pollux-16x4 --pollux-profiles " + (dir_ / "p").string() +
                      " --models-out " + (dir_ / "m.json").string() + " 2> " + err),
            2);
  EXPECT_NE(slurp(err).find("--models-out needs --fit-overlap"), std::string::npos) << slurp(err);
  EXPECT_FALSE(fs::exists(dir_ / "m.json"));
}

// The Sia artifact's slowdowns (cifar10 1.8): a cifar10 job alone runs 1.8x
// as long, up to the unscaled latency terms of its single-GPU step (none).
TEST_F(PublishedWorkload, SiaArtifactCalibrationSlowsEachModelByItsFactor) {
  std::ofstream(dir_ / "w.csv")
      << "name,time,application,num_replicas,batch_size\ncifar10-0,0,cifar10,1,128\n";
  const std::string trace = (dir_ / "w.csv").string() + " --format pollux-workload";
  ASSERT_EQ(replay(trace, "fifo"), 0) << slurp(dir_ / "err.txt");
  const auto plain = rows();
  ASSERT_EQ(replay(trace + " --model-calibration sia-artifact", "fifo"), 0) << slurp(dir_ / "err.txt");
  const auto slow = rows();
  ASSERT_EQ(plain.size(), 2u);
  ASSERT_EQ(slow.size(), 2u);
  EXPECT_NEAR(std::stod(slow[1][7]) / std::stod(plain[1][7]), 1.8, 1e-6);  // turnaround_time
  EXPECT_NE(slurp(dir_ / "out" / "summary.json").find("\"model_calibration\": \"sia-artifact\""),
            std::string::npos);
  EXPECT_EQ(replay(trace + " --model-calibration nope", "fifo"), 2);
  EXPECT_NE(slurp(dir_ / "err.txt")
                .find("unknown configuration 'nope' (known: pollux-overlap, sia-artifact, "
                      "sia-artifact-charges, sia-artifact-full)"),
            std::string::npos)
      << slurp(dir_ / "err.txt");
}

// The Sia artifact's start charges (cifar10 50 s, applications.py
// rescale_time): a cifar10 job alone under fifo starts once, so it finishes
// exactly 50 s later; with sia-artifact-full also 1.8x slower.
TEST_F(PublishedWorkload, SiaArtifactChargesDelayAJobByItsModelsCharge) {
  std::ofstream(dir_ / "w.csv")
      << "name,time,application,num_replicas,batch_size\ncifar10-0,0,cifar10,1,128\n";
  const std::string trace = (dir_ / "w.csv").string() + " --format pollux-workload";
  ASSERT_EQ(replay(trace, "fifo"), 0) << slurp(dir_ / "err.txt");
  const auto plain = rows();
  ASSERT_EQ(replay(trace + " --model-calibration sia-artifact-charges", "fifo"), 0)
      << slurp(dir_ / "err.txt");
  const auto charged = rows();
  ASSERT_EQ(replay(trace + " --model-calibration sia-artifact-full", "fifo"), 0) << slurp(dir_ / "err.txt");
  const auto full = rows();
  ASSERT_EQ(charged.size(), 2u);
  ASSERT_EQ(full.size(), 2u);
  const double t = std::stod(plain[1][7]);  // turnaround_time
  EXPECT_NEAR(std::stod(charged[1][7]), t + 50, 1e-6);
  EXPECT_NEAR(std::stod(full[1][7]), 1.8 * t + 50, 1e-6 * t);
}

}  // namespace

namespace {

// pollux-overlap sets cifar10's overlap fraction to 0.48: an 8-GPU job on two
// nodes at 256 per GPU computes C = 0.01775 + 6.64e-4 x 256 = 0.1878 s and
// all-reduces A = 2 x 7/8 x 44.7 MB / 0.7625 GB/s (the preset's NIC) = 0.1025 s
// per step; f x C = 0.090 s < A, so the step goes from C + A to 0.52 C + A,
// 0.69 of it. A 1-GPU job has no all-reduce and keeps its time.
TEST_F(PublishedWorkload, PolluxOverlapCalibrationHidesPartOfTheAllReduce) {
  std::ofstream(dir_ / "w.csv") << "name,time,application,num_replicas,batch_size\n"
                                << "cifar10-0,0,cifar10,8,2048\ncifar10-1,0,cifar10,1,128\n";
  const std::string trace = (dir_ / "w.csv").string() + " --format pollux-workload";
  ASSERT_EQ(replay(trace, "fifo"), 0) << slurp(dir_ / "err.txt");
  const auto plain = rows();
  ASSERT_EQ(replay(trace + " --model-calibration pollux-overlap", "fifo"), 0) << slurp(dir_ / "err.txt");
  const auto overlapped = rows();
  ASSERT_EQ(plain.size(), 3u);
  ASSERT_EQ(overlapped.size(), 3u);
  EXPECT_NEAR(std::stod(overlapped[1][6]) / std::stod(plain[1][6]), 0.69, 0.01);  // execution_time
  EXPECT_NEAR(std::stod(overlapped[2][6]) / std::stod(plain[2][6]), 1.0, 1e-9);
}

// Pollux, Optimus, Sia and Gavel price jobs with the data-parallel catalog: a
// DP x TP x PP layout job (gpt-1.3b, tp 2 x pp 2) is rejected with its reason
// and the data-parallel job beside it completes (before, the run stopped
// with "unknown model 'gpt-1.3b'").
TEST_F(PublishedWorkload, LayoutJobsAreRejectedWithAReasonByTheCatalogPricedPolicies) {
  std::ofstream(dir_ / "t.jsonl")
      << R"({"id": "a", "submit_s": 0, "gpus": 8, "model": "gpt-1.3b", "tp": 2, "pp": 2, "global_batch": 16, )"
      << R"("iterations": 41})"
      << "\n"
      << R"({"id": "b", "submit_s": 1, "gpus": 2, "model": "cifar10", "global_batch": 256, "iterations": 100})"
      << "\n";
  for (const std::string policy : {"pollux", "optimus", "sia", "gavel"}) {
    ASSERT_EQ(replay((dir_ / "t.jsonl").string(), policy), 0) << policy << ": " << slurp(dir_ / "err.txt");
    const auto r = rows();
    ASSERT_EQ(r.size(), 3u) << policy;
    EXPECT_EQ(r[1][0], "a");
    EXPECT_EQ(r[1][9], "REJECTED") << policy;
    EXPECT_EQ(r[1][11], "\"" + policy +
                            ": a DP x TP x PP layout job (tp 2 x pp 2) cannot run; this policy prices "
                            "data-parallel jobs of the model catalog only\"")
        << policy;
    EXPECT_EQ(r[2][0], "b");
    EXPECT_EQ(r[2][9], "COMPLETED") << policy;
  }
}

}  // namespace
