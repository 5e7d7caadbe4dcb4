// What `vnsim replay` tells the user while it runs and before (issue 21):
// without a terminal, status lines on stderr (simulated time, jobs done,
// jobs/s, RSS) at an interval VNSIM_STATUS_INTERVAL_S sets; none with
// --quiet; the opt-in actor ring engines say up front what they cost, and so
// does a trace that offers the cluster far more than it can do.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <vector>

#include "cli_process_test.hpp"

namespace {

class ReplayProgressCli : public vnsim::testing::CliProcessTest {
 protected:
  ReplayProgressCli() : CliProcessTest("vnsim-progress-") {}
  void TearDown() override {
    ::unsetenv("VNSIM_STATUS_INTERVAL_S");
    CliProcessTest::TearDown();
  }
  std::vector<std::string> status_lines() const {
    std::vector<std::string> lines;
    std::istringstream in(err());
    for (std::string line; std::getline(in, line);)
      if (line.rfind("vnsim replay: simulated ", 0) == 0) lines.push_back(line);
    return lines;
  }
};

const std::string kReplay = "replay --cluster testbed --trace synthetic:40 --policy tiresias --out ";

// Interval 0: a line at every controller step, so a short run shows them.
TEST_F(ReplayProgressCli, WithoutATerminalStatusLinesGoToStderr) {
  ::setenv("VNSIM_STATUS_INTERVAL_S", "0", 1);
  ASSERT_EQ(vnsim(kReplay + p("o")), 0) << err();
  const std::vector<std::string> lines = status_lines();
  ASSERT_GE(lines.size(), 10u) << err();
  EXPECT_NE(lines.front().find("of the trace's submit span to"), std::string::npos) << lines.front();
  for (const char* part : {" jobs done, ", " jobs/s, RSS ", " MB, wall "})
    EXPECT_NE(lines.front().find(part), std::string::npos) << lines.front();
  EXPECT_NE(lines.back().find("(every job submitted), 40 of 40 jobs done"), std::string::npos)
      << lines.back();
  // The simulated time only moves forward.
  double last = -1;
  for (const std::string& line : lines) {
    const double t = std::strtod(line.c_str() + std::string("vnsim replay: simulated ").size(), nullptr);
    EXPECT_GE(t, last) << line;
    last = t;
  }
}

TEST_F(ReplayProgressCli, QuietPrintsNoStatusLine) {
  ::setenv("VNSIM_STATUS_INTERVAL_S", "0", 1);
  ASSERT_EQ(vnsim(kReplay + p("o") + " --quiet"), 0) << err();
  EXPECT_TRUE(status_lines().empty()) << err();
}

// The default interval is 10 s: a run this short prints none.
TEST_F(ReplayProgressCli, ShortRunsPrintNoStatusLineByDefault) {
  ASSERT_EQ(vnsim(kReplay + p("o")), 0) << err();
  EXPECT_TRUE(status_lines().empty()) << err();
}

TEST_F(ReplayProgressCli, ABadIntervalIsAUserError) {
  ::setenv("VNSIM_STATUS_INTERVAL_S", "soon", 1);
  EXPECT_EQ(vnsim(kReplay + p("o")), 2);
  EXPECT_NE(err().find("VNSIM_STATUS_INTERVAL_S: expected seconds >= 0, got 'soon'"), std::string::npos)
      << err();
}

TEST_F(ReplayProgressCli, ActorRingEnginesAreOptInAndSayWhatTheyCost) {
  ASSERT_EQ(vnsim(kReplay + p("o") + " --quiet"), 0) << err();
  EXPECT_EQ(err().find("--actor-rings"), std::string::npos) << err();
  for (const char* flag : {"--actor-rings", "--quiet-rings"}) {
    ASSERT_EQ(vnsim(kReplay + p("o") + " --quiet " + flag), 0) << err();
    EXPECT_NE(err().find(std::string("note: ") + flag + " simulates contended multi-node rings"),
              std::string::npos)
        << err();
    EXPECT_NE(err().find("can take hours"), std::string::npos) << err();
  }
  EXPECT_EQ(vnsim(kReplay + p("o") + " --fluid-rings --actor-rings"), 2);
  EXPECT_NE(err().find("pick one ring engine"), std::string::npos) << err();
}

// 20 one-GPU jobs of a million ImageNet iterations, one a second: thousands
// of times what the 16-GPU testbed can do while they arrive. The note says
// so, whatever the policy or --quiet, and the --arrival-scale it suggests
// brings the load to 0.8, where no note is due.
TEST_F(ReplayProgressCli, ATraceFarBeyondTheClusterSaysSoUpFront) {
  const std::string trace = p("overload.jsonl");
  {
    std::ofstream f(trace);
    for (int i = 0; i < 20; ++i)
      f << "{\"id\": \"j" << i << "\", \"submit_s\": " << i
        << ", \"gpus\": 1, \"model\": \"imagenet\", \"iterations\": 1000000}\n";
  }
  const std::string replay = "replay --cluster testbed --trace " + trace + " --policy fifo --quiet --out ";
  ASSERT_EQ(vnsim(replay + p("o")), 0) << err();
  const std::string note = err();
  // Rows without a batch train at the model's default batch (docs/TRACES.md).
  std::ifstream jobs(p("o") + "/jobs.csv");
  const std::string csv((std::istreambuf_iterator<char>(jobs)), std::istreambuf_iterator<char>());
  EXPECT_EQ(csv.find("REJECTED"), std::string::npos) << csv;
  EXPECT_NE(note.find("note: the trace offers the cluster "), std::string::npos) << note;
  EXPECT_NE(note.find("can take hours on such a trace"), std::string::npos) << note;
  const std::string flag = "--arrival-scale ";
  const auto at = note.find(flag);
  ASSERT_NE(at, std::string::npos) << note;
  const double scale = std::strtod(note.c_str() + at + flag.size(), nullptr);
  EXPECT_GT(scale, 0);
  EXPECT_LT(scale, 0.01);
  ASSERT_EQ(vnsim(replay + p("o") + " " + flag + std::to_string(scale)), 0) << err();
  EXPECT_EQ(err().find("note: the trace offers"), std::string::npos) << err();
  // At 2.5 times that rate, a load of 2: the queue still grows, and the
  // note says so with the load to two digits.
  ASSERT_EQ(vnsim(replay + p("o") + " " + flag + std::to_string(scale * 2.5)), 0) << err();
  EXPECT_NE(err().find("note: the trace offers the cluster 2 times"), std::string::npos) << err();
  // The synthetic trace asks 2.7 times what the testbed can do, but its
  // queue drains within a day of simulated time: no note.
  ASSERT_EQ(vnsim(kReplay + p("o") + " --quiet"), 0) << err();
  EXPECT_EQ(err().find("note: the trace offers"), std::string::npos) << err();
}

}  // namespace
