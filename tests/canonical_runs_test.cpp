// Every run of the canonical experiments that replay in seconds, replayed by
// this build from its committed command.txt: its jobs.csv must be the
// committed one, byte for byte. An engine or policy refactor that means to
// change nothing is checked against the published results themselves, not
// only against the golden traces (docs/CONTRIBUTING.md). A change that
// means to change them re-runs the sweep (`scripts/experiments --fresh
// NAME`) and commits the new results with the reason.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "command_support.hpp"

namespace {

namespace fs = std::filesystem;
using vnsim::testing::exit_code;
using vnsim::testing::slurp;

// Replaces every occurrence of `from` in `text` by `to`.
std::string replaced(std::string text, const std::string& from, const std::string& to) {
  for (std::size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size()))
    text.replace(at, from.size(), to);
  return text;
}

class CanonicalRuns : public ::testing::TestWithParam<const char*> {};

TEST_P(CanonicalRuns, ReplayToTheCommittedJobsCsv) {
#ifdef VNSIM_SANITIZED
  GTEST_SKIP() << "checked by the regular build; under the sanitizers these replays take minutes";
#endif
  const fs::path source(VNSIM_SOURCE_DIR);
  const fs::path runs = source / "notebooks_out" / GetParam() / "runs";
  ASSERT_TRUE(fs::is_directory(runs)) << runs;
  const char* shared = std::getenv("VNSIM_SHARED");
  const fs::path scratch = fs::temp_directory_path() /
                           ("vnsim-canonical-" + std::string(GetParam()) + "-" + std::to_string(::getpid()));
  int compared = 0;
  std::vector<std::string> differing;
  for (const auto& run : fs::directory_iterator(runs)) {
    const std::string command = slurp(run.path() / "command.txt");
    ASSERT_FALSE(command.empty()) << run.path();
    if (command.find("${VNSIM_SHARED}") != std::string::npos && shared == nullptr)
      GTEST_SKIP() << "VNSIM_SHARED is not set; " << GetParam() << " replays a trace of ../shared";
    const fs::path out = scratch / run.path().filename();
    std::string line = command.substr(0, command.find('\n'));
    line = replaced(line, "build/vnsim ", std::string(VNSIM_CLI_PATH) + " ");
    line = replaced(line, "${VNSIM_SHARED}", shared ? shared : "");
    line = replaced(
        line, "--out " + (fs::path("notebooks_out") / GetParam() / "runs" / run.path().filename()).string(),
        "--out " + out.string());
    ASSERT_EQ(exit_code("cd " + source.string() + " && " + line + " > /dev/null 2>&1"), 0) << line;
    if (slurp(out / "jobs.csv") != slurp(run.path() / "jobs.csv")) differing.push_back(run.path().filename());
    ++compared;
  }
  fs::remove_all(scratch);
  EXPECT_GT(compared, 0);
  std::string list;
  for (const std::string& d : differing) list += " " + d;
  EXPECT_TRUE(differing.empty()) << differing.size() << " of " << compared << " runs of " << GetParam()
                                 << " give another jobs.csv than the committed one:" << list;
}

INSTANTIATE_TEST_SUITE_P(Experiments, CanonicalRuns,
                         ::testing::Values("fifo_vs_backfill", "vf_elasticity", "ckpt_vs_inplace",
                                           "pollux_load", "oversubscription", "adaptdl_batch"));

}  // namespace
