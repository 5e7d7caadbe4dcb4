// ${VNSIM_SHARED} in experiment configs: expansion, the fallback root, and a
// clear error when the shared file is missing.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "vnsim/core/error.hpp"
#include "vnsim/sweep/experiment_config.hpp"

namespace {

namespace fs = std::filesystem;
using vnsim::sweep::default_shared_root;
using vnsim::sweep::expand_shared;
using vnsim::sweep::parse_experiment_config;

std::string error_of(const auto& f) {
  try {
    f();
  } catch (const vnsim::InputError& e) {
    return e.what();
  }
  return "no error";
}

// A throw-away shared folder holding traces/t.csv and rules.json.
class SharedFolder : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() / ("vnsim_shared_paths_" + std::to_string(::getpid()) + "_" +
                                         ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(root_ / "traces");
    std::ofstream(root_ / "traces" / "t.csv") << "x\n";
    std::ofstream(root_ / "rules.json") << "{}\n";
  }
  void TearDown() override { fs::remove_all(root_); }
  fs::path root_;
};

TEST(ExpandShared, ReplacesEveryOccurrenceAndNothingElse) {
  EXPECT_EQ(expand_shared("${VNSIM_SHARED}/traces/a.csv", "/data"), "/data/traces/a.csv");
  EXPECT_EQ(expand_shared("x${VNSIM_SHARED}y${VNSIM_SHARED}", "R"), "xRyR");
  EXPECT_EQ(expand_shared("plain/path.csv", "/data"), "plain/path.csv");
  EXPECT_EQ(expand_shared("$VNSIM_SHARED/a", "/data"), "$VNSIM_SHARED/a");  // only the braced form
}

TEST(ExpandShared, RejectsOtherVariables) {
  EXPECT_EQ(error_of([] { expand_shared("${HOME}/a.csv", "/data"); }),
            "'${HOME}/a.csv': unknown variable '${HOME}' (only ${VNSIM_SHARED} is expanded)");
  EXPECT_EQ(error_of([] { expand_shared("${VNSIM_SHARED", "/data"); }),
            "'${VNSIM_SHARED': unknown variable '${VNSIM_SHARED' (only ${VNSIM_SHARED} is expanded)");
}

TEST(DefaultSharedRoot, EnvironmentFirstThenTheFolderBesideTheProject) {
  const char* saved = ::getenv("VNSIM_SHARED");
  const std::string keep = saved ? saved : "";
  ::setenv("VNSIM_SHARED", "/somewhere/./shared", 1);
  EXPECT_EQ(default_shared_root(), "/somewhere/shared");
  ::setenv("VNSIM_SHARED", "rel/shared", 1);  // relative to the working directory, as for any path argument
  EXPECT_EQ(default_shared_root(), (fs::current_path() / "rel/shared").string());
  ::setenv("VNSIM_SHARED", "", 1);  // empty counts as unset
  const std::string fallback = default_shared_root();
  ::unsetenv("VNSIM_SHARED");
  EXPECT_EQ(default_shared_root(), fallback);
  EXPECT_EQ(fs::path(fallback).filename(), "shared");
  EXPECT_EQ(fallback, fs::path(fallback).lexically_normal().string());  // no "/../" left
  if (saved) ::setenv("VNSIM_SHARED", keep.c_str(), 1);
}

TEST_F(SharedFolder, ClusterTraceAndModelRulesAreExpanded) {
  const auto c = parse_experiment_config(
      R"({"clusters": ["testbed"],
          "traces": ["${VNSIM_SHARED}/traces/t.csv",
                     {"trace": "${VNSIM_SHARED}/traces/t.csv", "label": "with rules",
                      "options": {"model-rules": "${VNSIM_SHARED}/rules.json"}}],
          "policies": ["fifo"]})",
      "exp.json", "/base", root_.string());
  EXPECT_EQ(c.traces[0].resolved, (root_ / "traces" / "t.csv").string());
  EXPECT_EQ(c.traces[0].trace, "${VNSIM_SHARED}/traces/t.csv");  // run ids hash this, not the machine's path
  EXPECT_EQ(c.traces[0].label, "${VNSIM_SHARED}/traces/t.csv");
  EXPECT_EQ(c.traces[1].options[0].second, (root_ / "rules.json").string());
}

TEST_F(SharedFolder, MissingSharedFileIsAClearError) {
  const std::string root = root_.string();
  const std::string msg = error_of([&] {
    parse_experiment_config(
        R"({"clusters": ["testbed"], "traces": [{"trace": "${VNSIM_SHARED}/traces/gone.csv"}],
                                "policies": ["fifo"]})",
        "exp.json", "/base", root);
  });
  EXPECT_EQ(msg, "exp.json: traces[0].trace: '${VNSIM_SHARED}/traces/gone.csv' is '" + root +
                     "/traces/gone.csv', which does not exist (set VNSIM_SHARED to the folder of the shared "
                     "data: traces/, profiles/)");
  EXPECT_NE(
      error_of([&] {
        parse_experiment_config(
            R"({"clusters": ["${VNSIM_SHARED}/c.json"], "traces": ["synthetic:5"], "policies": ["fifo"]})",
            "exp.json", "/base", root);
      }).find("exp.json: clusters[0]: '${VNSIM_SHARED}/c.json' is '"),
      std::string::npos);
  EXPECT_EQ(error_of([&] {
              parse_experiment_config(
                  R"({"clusters": ["testbed"], "traces": ["${SHARED}/t.csv"], "policies": ["fifo"]})",
                  "exp.json", "/base", root);
            }),
            "exp.json: traces[0]: '${SHARED}/t.csv': unknown variable '${SHARED}' (only ${VNSIM_SHARED} is "
            "expanded)");
}

TEST_F(SharedFolder, PathsWithoutTheVariableAreNotCheckedHere) {
  // A missing plain file fails its run (with replay's error), as before.
  const auto c =
      parse_experiment_config(R"({"clusters": ["testbed"], "traces": ["nowhere.csv"], "policies": ["fifo"]})",
                              "exp.json", "/base", root_.string());
  EXPECT_EQ(c.traces[0].resolved, "/base/nowhere.csv");
}

}  // namespace
