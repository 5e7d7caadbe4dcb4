// command.txt names no folder of the machine that ran the sweep: the shared
// data as ${VNSIM_SHARED}, paths in the working directory relative to it.
#include "vnsim/sweep/display_command.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <string>

namespace {

namespace fs = std::filesystem;
using vnsim::sweep::display_command;
using vnsim::sweep::shared_path_label;

TEST(DisplayCommand, SharedDataBecomesTheVariableAndProjectPathsBecomeRelative) {
  const std::string line = display_command(
      {"/home/u/vnsim/build/vnsim", "replay", "--cluster", "/home/u/vnsim/experiments/configs/oversub/r.json",
       "--trace", "/data/shared/traces/w.csv", "--out", "/home/u/vnsim/notebooks_out/x/runs/0a", "--seed",
       "1"},
      "/data/shared", "/home/u/vnsim");
  EXPECT_EQ(line,
            "build/vnsim replay --cluster experiments/configs/oversub/r.json --trace "
            "\"${VNSIM_SHARED}/traces/w.csv\" --out notebooks_out/x/runs/0a --seed 1");
}

TEST(DisplayCommand, KeepsOtherPathsAndQuotesWhatAShellWouldSplit) {
  EXPECT_EQ(display_command({"/opt/bin/vnsim", "--trace", "/elsewhere/a b.csv", "--vc", "x,y"},
                            "/data/shared", "/home/u/vnsim"),
            "/opt/bin/vnsim --trace '/elsewhere/a b.csv' --vc x,y");
  // A sibling whose name starts like the shared folder is not inside it.
  EXPECT_EQ(display_command({"/data/shared2/t.csv"}, "/data/shared", "/home/u"), "/data/shared2/t.csv");
  // Characters special inside double quotes are escaped after the variable.
  EXPECT_EQ(display_command({"/data/shared/a$b\"c.csv"}, "/data/shared", "/home/u"),
            "\"${VNSIM_SHARED}/a\\$b\\\"c.csv\"");
  EXPECT_EQ(display_command({"/data/shared"}, "/data/shared/", "/home/u"), "\"${VNSIM_SHARED}\"");
}

TEST(SharedPathLabel, NamesTheSharedDataByTheVariableAndKeepsOtherPaths) {
  EXPECT_EQ(shared_path_label("/data/shared/traces/w.csv", "/data/shared"), "${VNSIM_SHARED}/traces/w.csv");
  EXPECT_EQ(shared_path_label("/data/shared/x/../traces/w.csv", "/data/shared/"),
            "${VNSIM_SHARED}/traces/w.csv");
  EXPECT_EQ(shared_path_label("/data/shared", "/data/shared"), "${VNSIM_SHARED}");
  EXPECT_EQ(shared_path_label("/data/shared2/w.csv", "/data/shared"), "/data/shared2/w.csv");
  EXPECT_EQ(shared_path_label("/data/shared/w.csv", ""), "/data/shared/w.csv");
  EXPECT_EQ(shared_path_label("rel/w.csv", "/data/shared"), "rel/w.csv");
}

// The committed canonical runs (notebooks_out/*/runs/*/command.txt) follow
// the same rule, so a reader can re-run them from the project's root.
TEST(DisplayCommand, CommittedCommandFilesNameNoAbsolutePath) {
  const fs::path root = fs::path(VNSIM_SOURCE_DIR) / "notebooks_out";
  if (!fs::is_directory(root)) GTEST_SKIP() << root << " is not there";
  const std::regex absolute(R"((^|[ '"=])/[A-Za-z])");
  int files = 0;
  for (const auto& entry : fs::recursive_directory_iterator(root)) {
    if (entry.path().filename() != "command.txt") continue;
    ++files;
    std::ifstream f(entry.path());
    const std::string text((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
    EXPECT_FALSE(std::regex_search(text, absolute)) << entry.path() << ": " << text;
  }
  EXPECT_GT(files, 0);
}

// Nor do their run.json and summary.json: a trace of the shared data is
// named by the variable there too (shared_path_label).
TEST(DisplayCommand, CommittedRunFilesNameNoAbsoluteTracePath) {
  const fs::path root = fs::path(VNSIM_SOURCE_DIR) / "notebooks_out";
  if (!fs::is_directory(root)) GTEST_SKIP() << root << " is not there";
  const std::regex absolute(R"x("trace": "/)x");
  int files = 0;
  for (const auto& entry : fs::recursive_directory_iterator(root)) {
    const std::string name = entry.path().filename().string();
    if (name != "run.json" && name != "summary.json") continue;
    ++files;
    std::ifstream f(entry.path());
    const std::string text((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
    EXPECT_FALSE(std::regex_search(text, absolute)) << entry.path();
  }
  EXPECT_GT(files, 0);
}

}  // namespace
