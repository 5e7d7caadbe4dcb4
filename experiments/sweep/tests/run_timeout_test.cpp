// The executor's per-run time budget, with shell scripts standing in for
// `vnsim replay` (so the test needs neither SimGrid nor a slow policy).
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "vnsim/sweep/experiment_config.hpp"
#include "vnsim/sweep/run_executor.hpp"

namespace {

namespace fs = std::filesystem;
using vnsim::sweep::execute_runs;
using vnsim::sweep::ExecutorOptions;
using vnsim::sweep::RunSpec;

std::string read(const fs::path& f) {
  std::ifstream in(f);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

class RunTimeout : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("vnsim_run_timeout_" + std::to_string(::getpid()) + "_" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    run_.id = "0123456789ab";
    run_.cluster = {"testbed", "testbed"};
    run_.trace.trace = run_.trace.resolved = run_.trace.label = "synthetic:5";
    run_.policy.name = run_.policy.label = "fifo";
    run_.seed = 1;
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string script(const std::string& body) {
    const fs::path exe = dir_ / "fake_replay.sh";
    std::ofstream(exe) << "#!/bin/sh\n" << body;
    fs::permissions(exe, fs::perms::owner_all);
    return exe.string();
  }
  // A fake replay: writes summary.json into the folder after --out, after sleeping `sleep_s`.
  std::string fake_replay(const std::string& sleep_s) {
    return script("while [ $# -gt 0 ]; do [ \"$1\" = --out ] && out=$2; shift; done\nsleep " + sleep_s +
                  "\necho '{}' > \"$out/summary.json\"\n");
  }
  // One that never finishes in time; exec, so the kill reaches the sleeping process itself.
  std::string slow_replay() { return script("echo working >&2\nexec sleep 30\n"); }

  ExecutorOptions options(const std::string& exe, double timeout_s) const {
    ExecutorOptions o;
    o.vnsim_exe = exe;
    o.out_dir = (dir_ / "sweep").string();
    o.run_timeout_s = timeout_s;
    return o;
  }

  fs::path dir_;
  RunSpec run_;
};

TEST_F(RunTimeout, SlowRunIsKilledAndRecordedAsTimedOut) {
  const auto start = std::chrono::steady_clock::now();
  const auto tally = execute_runs({&run_}, options(slow_replay(), 0.3));
  const std::chrono::duration<double> took = std::chrono::steady_clock::now() - start;
  EXPECT_EQ(tally.ran, 1u);
  EXPECT_EQ(tally.failed, 1u);
  EXPECT_LT(took.count(), 10.0);  // killed, not waited for
  const fs::path run_dir = dir_ / "sweep" / "runs" / run_.id;
  EXPECT_FALSE(fs::exists(run_dir / "summary.json"));
  EXPECT_EQ(read(run_dir / "exit_code.txt"), "137\n");  // 128 + SIGKILL
  EXPECT_EQ(read(run_dir / "error.txt"), "working\ntimed out: killed after 0.3 s (--run-timeout)\n");
}

TEST_F(RunTimeout, RunWithinTheBudgetSucceeds) {
  const auto tally = execute_runs({&run_}, options(fake_replay("0"), 20));
  EXPECT_EQ(tally.ran, 1u);
  EXPECT_EQ(tally.failed, 0u);
  EXPECT_TRUE(fs::exists(dir_ / "sweep" / "runs" / run_.id / "summary.json"));
  EXPECT_FALSE(fs::exists(dir_ / "sweep" / "runs" / run_.id / "error.txt"));
}

TEST_F(RunTimeout, ZeroMeansNoBudget) {
  const auto tally = execute_runs({&run_}, options(fake_replay("0.5"), 0));
  EXPECT_EQ(tally.failed, 0u);
  EXPECT_TRUE(fs::exists(dir_ / "sweep" / "runs" / run_.id / "summary.json"));
}

}  // namespace
