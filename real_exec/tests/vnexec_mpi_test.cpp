// End-to-end tests of vnexec's cpu backend: real processes under
// `mpirun --oversubscribe` on tiny traces (a few seconds per run). Skipped
// when mpirun is not installed.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

namespace {

namespace fs = std::filesystem;

std::string slurp(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

int exit_code(const std::string& command) {
  const int rc = std::system(command.c_str());
  return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

// One node with `gpus` workers of the reference type on fast local links.
std::string testbed_spec(int gpus) {
  return R"({"name": "mpi-test", "defaults": {"gpus": )" + std::to_string(gpus) +
         R"(, "gpu_type": "T4", "intra": {"kind": "pcie", "bandwidth_gbps": 80, "latency_us": 5},
             "nic": {"bandwidth_gbps": 80, "latency_us": 0}},
             "racks": [{"name": "rack0", "nodes": [{"name": "host0"}]}]})";
}

class VnexecMpi : public ::testing::Test {
 protected:
  void SetUp() override {
    if (exit_code("command -v mpirun > /dev/null 2>&1") != 0) GTEST_SKIP() << "mpirun not installed";
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = fs::temp_directory_path() /
           ("vnexec-" + std::string(info->name()) + "-" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override {
    if (!dir_.empty()) fs::remove_all(dir_);
  }
  fs::path write(const std::string& name, const std::string& body) {
    std::ofstream(dir_ / name) << body;
    return dir_ / name;
  }
  // mpirun -np `ranks` vnexec <args>; stdout and stderr to files.
  int vnexec(int ranks, const std::string& args) {
    return exit_code("OMPI_MCA_rmaps_base_oversubscribe=1 mpirun --allow-run-as-root --oversubscribe -np " +
                     std::to_string(ranks) + " " + VNEXEC_PATH + " " + args + " > " +
                     (dir_ / "out.txt").string() + " 2> " + (dir_ / "err.txt").string());
  }
  std::string log() const { return slurp(dir_ / "out.txt") + slurp(dir_ / "err.txt"); }
  std::vector<nlohmann::json> events(const std::string& kind) const {
    std::vector<nlohmann::json> out;
    std::ifstream in(dir_ / "run" / "measurements.jsonl");
    std::string line;
    while (std::getline(in, line)) {
      auto j = nlohmann::json::parse(line);
      if (j["event"] == kind) out.push_back(j);
    }
    return out;
  }
  fs::path dir_;
};

// Job a: 4 virtual nodes on 2 workers (2 micro-batches accumulated per rank
// per step); b arrives while a runs and waits under fifo; c needs 3 workers
// on a 2-worker testbed and is rejected with a reason.
const char* const kTrace =
    R"({"id": "a", "submit_s": 0, "gpus": 2, "virtual_nodes": 4, "model": "cifar10", "global_batch": 64, "iterations": 12}
{"id": "b", "submit_s": 0.01, "gpus": 2, "model": "cifar10", "global_batch": 32, "iterations": 8}
{"id": "c", "submit_s": 0.02, "gpus": 3, "model": "cifar10", "global_batch": 32, "iterations": 8}
)";

TEST_F(VnexecMpi, CpuBackendRunsATraceAndWritesTheDocumentedOutputs) {
  const fs::path trace = write("trace.jsonl", kTrace);
  const fs::path spec = write("cluster.json", testbed_spec(2));
  ASSERT_EQ(vnexec(3, "run --trace " + trace.string() + " --cluster " + spec.string() + " --out " +
                          (dir_ / "run").string() + " --policy fifo --compute-scale 2e8"),
            0)
      << log();
  const std::string jobs = slurp(dir_ / "run" / "jobs.csv");
  EXPECT_NE(jobs.find("a,"), std::string::npos) << jobs;
  EXPECT_NE(jobs.find("COMPLETED"), std::string::npos) << jobs;
  EXPECT_NE(jobs.find("requests 3 GPUs"), std::string::npos) << jobs;  // c: the feasibility reason
  for (const char* f : {"summary.json", "run_config.json", "trace.jsonl"})
    EXPECT_TRUE(fs::exists(dir_ / "run" / f)) << f;
  const auto finished = events("finish");
  ASSERT_EQ(finished.size(), 2u) << log();
  for (const auto& f : finished) EXPECT_TRUE(f["params_consistent"].get<bool>()) << f.dump();
  // Every step of a and b is measured once, in order.
  EXPECT_EQ(events("iteration").size(), 12u + 8u);
  // fifo: b starts only after a finishes.
  double a_finish = -1, b_start = -1;
  for (const auto& f : finished)
    if (f["job"] == "a") a_finish = f["t"];
  for (const auto& s : events("start"))
    if (s["job"] == "b") b_start = s["t"];
  EXPECT_GE(b_start, a_finish);
}

TEST_F(VnexecMpi, AFailedWorkerIsReportedAndTheJobResumesFromItsCheckpoint) {
  const fs::path trace = write(
      "trace.jsonl",
      R"({"id": "a", "submit_s": 0, "gpus": 2, "model": "cifar10", "global_batch": 32, "iterations": 12})"
      "\n");
  const fs::path spec = write("cluster.json", testbed_spec(3));
  ASSERT_EQ(vnexec(4, "run --trace " + trace.string() + " --cluster " + spec.string() + " --out " +
                          (dir_ / "run").string() +
                          " --checkpoint-every 4 --inject-failure a:6 --compute-scale 2e8"),
            0)
      << log();
  const auto failures = events("failure");
  ASSERT_EQ(failures.size(), 1u) << log();
  EXPECT_EQ(failures[0]["resume_iteration"], 4);  // the checkpoint before step 6
  ASSERT_EQ(events("finish").size(), 1u) << log();
  EXPECT_TRUE(events("finish")[0]["params_consistent"].get<bool>());
  // The restarted segment runs steps 4..11 on the two workers still in service.
  const auto launches = events("launch");
  ASSERT_EQ(launches.size(), 2u);
  EXPECT_EQ(launches[1]["start_iteration"], 4);
  const std::string jobs = slurp(dir_ / "run" / "jobs.csv");
  EXPECT_NE(jobs.find("COMPLETED"), std::string::npos) << jobs;
}

TEST_F(VnexecMpi, CalibrateWritesASpecAndProfileTheSimulatorReads) {
  ASSERT_EQ(vnexec(3, "calibrate --models cifar10 --repetitions 2 --compute-scale 2e8 --out " +
                          (dir_ / "cal").string()),
            0)
      << log();
  const auto profile = nlohmann::json::parse(slurp(dir_ / "cal" / "models.json"));
  EXPECT_GT(profile["models"]["cifar10"]["alpha_compute_s"].get<double>() +
                profile["models"]["cifar10"]["beta_compute_s"].get<double>(),
            0);
  const auto spec = nlohmann::json::parse(slurp(dir_ / "cal" / "cluster.json"));
  EXPECT_EQ(spec["defaults"]["gpus"], 2);
}

TEST_F(VnexecMpi, BadInputIsAOneLineErrorNotAHang) {
  const fs::path spec = write("cluster.json", testbed_spec(2));
  EXPECT_NE(vnexec(3, "run --trace " + (dir_ / "missing.jsonl").string() + " --cluster " + spec.string() +
                          " --out " + (dir_ / "run").string()),
            0);
  EXPECT_NE(log().find("missing.jsonl"), std::string::npos) << log();
}

}  // namespace
