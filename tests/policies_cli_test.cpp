// `vnsim policies` end to end: the listing names every policy and its
// parameters with defaults; a bad name is a clear error with exit code 2.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace {

namespace fs = std::filesystem;

class PoliciesCli : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("vnsim-policies-cli-" + std::to_string(::getpid()));
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  // Runs `vnsim <args>`, stdout to out.txt and stderr to err.txt.
  int run(const std::string& args) {
    const std::string cmd = std::string(VNSIM_CLI_PATH) + " " + args + " > " + (dir_ / "out.txt").string() +
                            " 2> " + (dir_ / "err.txt").string();
    return WEXITSTATUS(std::system(cmd.c_str()));
  }
  std::string read(const char* name) const {
    std::ifstream f(dir_ / name);
    std::stringstream s;
    s << f.rdbuf();
    return s.str();
  }
  fs::path dir_;
};

TEST_F(PoliciesCli, ListsEveryPolicyWithParametersAndDefaults) {
  ASSERT_EQ(run("policies"), 0) << read("err.txt");
  const std::string out = read("out.txt");
  for (const char* name :
       {"\nfifo\n", "\nfifo-backfill\n", "\ntiresias\n", "\ngavel\n", "\nthemis\n", "\ngandiva\n"})
    EXPECT_NE(out.find(name), std::string::npos) << name << " missing in:\n" << out;
  EXPECT_NE(out.find("  thresholds=3250,7200  "), std::string::npos) << out;
  EXPECT_NE(out.find("round_s=360"), std::string::npos) << out;
  EXPECT_NE(out.find("objective=max_min_fairness"), std::string::npos) << out;
  EXPECT_NE(out.find("lease_s=600"), std::string::npos) << out;
  EXPECT_NE(out.find("slice_s=60"), std::string::npos) << out;
  EXPECT_NE(out.find("fifo\n  (no parameters)\n"), std::string::npos) << out;
}

TEST_F(PoliciesCli, ShowsOnePolicyByName) {
  ASSERT_EQ(run("policies gavel"), 0) << read("err.txt");
  const std::string out = read("out.txt");
  EXPECT_EQ(out.rfind("gavel\n", 0), 0u) << out;
  EXPECT_EQ(out.find("tiresias"), std::string::npos) << out;
  EXPECT_NE(out.find("reset_s=1920"), std::string::npos) << out;
}

TEST_F(PoliciesCli, UnknownPolicyIsAnInputError) {
  EXPECT_EQ(run("policies gavle"), 2);
  const std::string err = read("err.txt");
  EXPECT_NE(err.find("unknown policy 'gavle'"), std::string::npos) << err;
  EXPECT_EQ(run("policies gavel themis"), 2);
}

}  // namespace
