// The same inputs and seed give byte-identical outputs: two separate vnsim
// processes, compared file by file. A third run with another seed must differ,
// so the test can fail for the right reason.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace {

std::string slurp(const std::filesystem::path& p) {
  std::ifstream f(p, std::ios::binary);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

int run_cli(const std::string& args) {
  const std::string cmd = std::string(VNSIM_CLI_PATH) + " " + args + " --quiet";
  return std::system(cmd.c_str());
}

TEST(CliDeterminism, SameSeedSameBytes) {
  const auto base = std::filesystem::temp_directory_path() / ("vnsim-det-" + std::to_string(::getpid()));
  std::filesystem::remove_all(base);
  const std::string common = "replay --cluster testbed --trace synthetic:300 --policy fifo";
  ASSERT_EQ(run_cli(common + " --seed 5 --out " + (base / "a").string()), 0);
  ASSERT_EQ(run_cli(common + " --seed 5 --out " + (base / "b").string()), 0);
  ASSERT_EQ(run_cli(common + " --seed 6 --out " + (base / "c").string()), 0);
  for (const char* file : {"jobs.csv", "allocations.csv", "summary.json", "skipped_rows.csv"}) {
    const std::string a = slurp(base / "a" / file);
    ASSERT_FALSE(a.empty()) << file;
    EXPECT_EQ(a, slurp(base / "b" / file)) << file << " differs between two runs with the same seed";
  }
  EXPECT_NE(slurp(base / "a" / "jobs.csv"), slurp(base / "c" / "jobs.csv")) << "seed has no effect";
  std::filesystem::remove_all(base);
}

TEST(CliErrors, BrokenInputsGiveOneClearLineAndExitCode2) {
  const auto dir = std::filesystem::temp_directory_path() / ("vnsim-err-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  {
    std::ofstream bad(dir / "bad.json");
    bad << "{\"name\": \"x\", \"racks\": []}";
  }
  const std::string err = (dir / "err.txt").string();
  int rc = run_cli("replay --cluster " + (dir / "bad.json").string() + " --trace synthetic:10 --out " +
                   (dir / "o").string() + " 2> " + err);
  EXPECT_EQ(WEXITSTATUS(rc), 2);
  const std::string msg = slurp(err);
  EXPECT_NE(msg.find("bad.json"), std::string::npos) << msg;
  EXPECT_NE(msg.find("racks"), std::string::npos) << msg;
  rc = run_cli("replay --cluster testbed --trace /nonexistent.csv --out " + (dir / "o").string() + " 2> " +
               err);
  EXPECT_EQ(WEXITSTATUS(rc), 2);
  EXPECT_NE(slurp(err).find("/nonexistent.csv"), std::string::npos) << slurp(err);
  std::filesystem::remove_all(dir);
}

}  // namespace
