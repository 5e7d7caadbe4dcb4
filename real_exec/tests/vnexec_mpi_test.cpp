// End-to-end tests of vnexec's cpu backend: real processes under
// `mpirun --oversubscribe` on tiny traces (a few seconds per run). Skipped
// when mpirun is not installed.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <thread>

#include "command_support.hpp"
#include "vnsim/core/goodput.hpp"
#include "vnsim/core/model_catalog.hpp"
#include "vnsim/real_exec/gradient_model.hpp"
#include "vnsim/real_exec/workload.hpp"

namespace {

namespace fs = std::filesystem;
using vnsim::testing::exit_code;
using vnsim::testing::slurp;

// The parameters after `iterations` steps of one job trained in a single
// process on one big batch: what every rank set, split into virtual nodes,
// resize or restart of the same job must reproduce bit for bit.
std::string reference_checksum(const std::string& model, long long global_batch, long long iterations,
                               double compute_scale) {
  using namespace vnsim::real_exec;
  EmulationScale scale;
  scale.flops_per_reference_second = compute_scale;
  const std::size_t n = emulated_parameter_count(vnsim::ModelCatalog::builtin().at(model), scale);
  std::vector<double> params = initial_parameters(n), grad(n);
  for (long long it = 0; it < iterations; ++it) {
    std::fill(grad.begin(), grad.end(), 0.0);
    accumulate_samples(grad, it * global_batch, global_batch);
    apply_sgd(params, grad, global_batch, JobShape{}.learning_rate);
  }
  return std::to_string(parameter_checksum(params));
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
    // A parameterised test's name holds a '/': one folder, not a nest of
    // two that TearDown would only half remove.
    std::string name = info->name();
    std::replace(name.begin(), name.end(), '/', '_');
    dir_ = fs::temp_directory_path() / ("vnexec-" + name + "-" + std::to_string(::getpid()));
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
  std::string mpirun(int ranks, const std::string& args, const std::string& log_name) const {
    return "OMPI_MCA_rmaps_base_oversubscribe=1 mpirun --allow-run-as-root --oversubscribe -np " +
           std::to_string(ranks) + " " + VNEXEC_PATH + " " + args + " > " + (dir_ / log_name).string() +
           " 2>&1";
  }
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
  ASSERT_EQ(vnexec(3, "calibrate --models cifar10,ncf --repetitions 2 --compute-scale 2e8 --out " +
                          (dir_ / "cal").string()),
            0)
      << log();
  // The all-reduce line goes through each model's gradient timed inside
  // whole steps, as the runs log it.
  const auto raw = nlohmann::json::parse(slurp(dir_ / "cal" / "calibration.json"));
  double smallest = 1e300, largest = 0;
  for (const char* model : {"cifar10", "ncf"}) {
    EXPECT_GT(raw["models"][model]["step_allreduce_s"].get<double>(), 0) << model;
    smallest = std::min(smallest, raw["models"][model]["gradient_bytes"].get<double>());
    largest = std::max(largest, raw["models"][model]["gradient_bytes"].get<double>());
  }
  EXPECT_EQ(raw["allreduce_fit_used"]["from_bytes"].get<double>(), smallest);
  EXPECT_EQ(raw["allreduce_fit_used"]["to_bytes"].get<double>(), largest);
  EXPECT_EQ(raw["realtime_priority"], 0);
  const auto profile = nlohmann::json::parse(slurp(dir_ / "cal" / "models.json"));
  EXPECT_GT(profile["models"]["cifar10"]["alpha_compute_s"].get<double>() +
                profile["models"]["cifar10"]["beta_compute_s"].get<double>(),
            0);
  const auto spec = nlohmann::json::parse(slurp(dir_ / "cal" / "cluster.json"));
  EXPECT_EQ(spec["defaults"]["gpus"], 2);
  // Measured, so positive, and far below the simulator's 1 s default on one machine.
  const double setup_s = spec["elasticity"]["communicator_setup_s"].get<double>();
  EXPECT_GT(setup_s, 0);
  EXPECT_LT(setup_s, 1.0);
  // The four files were written under temporary names and renamed into place.
  for (const auto& entry : fs::directory_iterator(dir_ / "cal"))
    EXPECT_EQ(entry.path().filename().string().find(".partial-"), std::string::npos) << entry.path();
  EXPECT_TRUE(fs::exists(dir_ / "cal" / "calibration.json"));
}

// Pollux and Sia on three small jobs, with the gradient noise vnexec
// calibrate measured: they change the jobs' batches (the goodput-optimal
// batch of a problem whose noise scale is ~640 samples is far from the
// trace's 32-64) through checkpoint-restarts, and every job ends with
// exactly the parameters of its segments' batches replayed in one process.
class VnexecAdaptiveBatch : public VnexecMpi, public ::testing::WithParamInterface<const char*> {};

TEST_P(VnexecAdaptiveBatch, ChangesBatchesFromTheMeasuredNoiseAndLosesNoSample) {
  ASSERT_EQ(vnexec(3, "calibrate --models cifar10,ncf --repetitions 1 --compute-scale 2e8 --out " +
                          (dir_ / "cal").string()),
            0)
      << log();
  const auto noise = nlohmann::json::parse(slurp(dir_ / "cal" / "noise.json"));
  // The synthetic problem's noise scale is 10 x kSignalStride = 640 samples.
  for (const char* m : {"cifar10", "ncf"})
    EXPECT_NEAR(noise["models"][m]["phi"][0][1].get<double>(), 640, 128) << noise.dump();
  const fs::path trace =
      write("trace.jsonl",
            R"({"id": "a", "submit_s": 0, "gpus": 2, "model": "cifar10", "global_batch": 64, "iterations": 30}
{"id": "b", "submit_s": 0.05, "gpus": 1, "model": "ncf", "global_batch": 32, "iterations": 40}
{"id": "c", "submit_s": 0.1, "gpus": 1, "model": "cifar10", "global_batch": 32, "iterations": 30}
)");
  ASSERT_EQ(
      vnexec(3, "run --trace " + trace.string() + " --cluster " + (dir_ / "cal" / "cluster.json").string() +
                    " --profile " + (dir_ / "cal" / "models.json").string() + " --noise " +
                    (dir_ / "cal" / "noise.json").string() + " --out " + (dir_ / "run").string() +
                    " --compute-scale 2e8 --policy " + GetParam() + " --policy-param interval_s=0.2"),
      0)
      << log();
  const auto run_config = nlohmann::json::parse(slurp(dir_ / "run" / "run_config.json"));
  EXPECT_EQ(run_config["noise"], "noise.json");
  const std::map<std::string, std::pair<std::string, int>> spec = {
      {"a", {"cifar10", 64}}, {"b", {"ncf", 32}}, {"c", {"cifar10", 32}}};
  std::map<std::string, std::vector<nlohmann::json>> launches;
  for (const auto& l : events("launch")) launches[l["job"]].push_back(l);
  int batch_changes = 0;
  for (const auto& [id, segments] : launches)
    for (const auto& l : segments) batch_changes += l["global_batch"] != spec.at(id).second;
  EXPECT_GT(batch_changes, 0) << GetParam() << " changed no batch";
  // The work left at a new batch, re-expressed from the measured noise as
  // the simulator does: each launch's total_iterations.
  const vnsim::NoiseScaleCatalog catalog =
      vnsim::NoiseScaleCatalog::parse(slurp(dir_ / "run" / "noise.json"), "noise.json");
  const std::map<std::string, long long> iterations = {{"a", 30}, {"b", 40}, {"c", 30}};
  for (const auto& [id, segments] : launches) {
    long long total = iterations.at(id);
    int batch = spec.at(id).second;
    for (const auto& l : segments) {
      const int next = l["global_batch"];
      const long long start = l["start_iteration"];
      if (next != batch)
        total = start + std::max(1LL, std::llround(vnsim::steps_left_after_batch_change(
                                          catalog.find(spec.at(id).first), spec.at(id).second,
                                          static_cast<double>(iterations.at(id)), batch,
                                          static_cast<double>(total - start), next)));
      batch = next;
      EXPECT_EQ(l["total_iterations"], total) << l.dump();
    }
  }
  const auto finished = events("finish");
  ASSERT_EQ(finished.size(), 3u) << log();
  for (const auto& f : finished) {
    // Segment k runs steps [start_k, start_{k+1}) at its batch, the last to
    // its total_iterations; replayed in one process, they must give the
    // finish checksum bit for bit.
    const std::string id = f["job"];
    const auto& segs = launches.at(id);
    using namespace vnsim::real_exec;
    EmulationScale scale;
    scale.flops_per_reference_second = 2e8;
    const std::size_t n =
        emulated_parameter_count(vnsim::ModelCatalog::builtin().at(spec.at(id).first), scale);
    std::vector<double> params = initial_parameters(n), grad(n);
    for (std::size_t k = 0; k < segs.size(); ++k) {
      const long long batch = segs[k]["global_batch"];
      const long long end = k + 1 < segs.size() ? segs[k + 1]["start_iteration"].get<long long>()
                                                : segs[k]["total_iterations"].get<long long>();
      for (long long it = segs[k]["start_iteration"]; it < end; ++it) {
        std::fill(grad.begin(), grad.end(), 0.0);
        accumulate_samples(grad, it * batch, batch);
        apply_sgd(params, grad, batch, JobShape{}.learning_rate);
      }
    }
    EXPECT_EQ(f["checksum"], std::to_string(parameter_checksum(params))) << id;
    EXPECT_TRUE(f["params_consistent"].get<bool>()) << f.dump();
  }
}

INSTANTIATE_TEST_SUITE_P(PolluxAndSia, VnexecAdaptiveBatch, ::testing::Values("pollux", "sia"),
                         [](const auto& p) { return std::string(p.param); });

// --realtime puts the workers under SCHED_RR where the system permits it,
// and says so in calibration.json; where it does not, one line says why and
// the calibration goes on at normal priority.
TEST_F(VnexecMpi, RealtimeWorkersWherePermittedAndAClearFallbackElsewhere) {
  ASSERT_EQ(vnexec(3, "calibrate --models ncf --repetitions 2 --compute-scale 2e8 --realtime 5 --out " +
                          (dir_ / "cal").string()),
            0)
      << log();
  const auto raw = nlohmann::json::parse(slurp(dir_ / "cal" / "calibration.json"));
  if (exit_code("chrt -r 5 true > /dev/null 2>&1") == 0) {
    EXPECT_EQ(raw["realtime_priority"], 5) << log();
    EXPECT_EQ(log().find("cannot run under SCHED_RR"), std::string::npos) << log();
  } else {
    EXPECT_EQ(raw["realtime_priority"], 0);
    EXPECT_NE(log().find("--realtime 5: the worker rank 1 cannot run under SCHED_RR"), std::string::npos)
        << log();
  }
  EXPECT_EQ(vnexec(3, "calibrate --models ncf --realtime 99 --out " + (dir_ / "cal2").string()), 2);
  EXPECT_NE(log().find("--realtime: expected a priority of 0-98"), std::string::npos) << log();
}

TEST_F(VnexecMpi, BadInputIsAOneLineErrorNotAHang) {
  const fs::path spec = write("cluster.json", testbed_spec(2));
  EXPECT_NE(vnexec(3, "run --trace " + (dir_ / "missing.jsonl").string() + " --cluster " + spec.string() +
                          " --out " + (dir_ / "run").string()),
            0);
  EXPECT_NE(log().find("missing.jsonl"), std::string::npos) << log();
}

// Job a: 4 virtual nodes on 2 of 3 workers; b (2 virtual nodes) arrives
// while a runs. fifo queues b until a finishes; vf-wfs starts b at once on
// the third worker and grows it in place to 2 workers when a finishes.
// b is about six times a's work, so that a ends first even when the ranks
// are slowed unevenly on a loaded machine (vf-wfs must then grow b). b
// arrives 10 ms in: the run's clock starts when jobs can start (after the
// transport probe), and alone on an idle machine a takes about 50 ms, so
// an arrival at 50 ms raced a's end.
const char* const kTwoJobTrace =
    R"({"id": "a", "submit_s": 0, "gpus": 2, "virtual_nodes": 4, "model": "cifar10", "global_batch": 64, "iterations": 30}
{"id": "b", "submit_s": 0.01, "gpus": 2, "model": "cifar10", "global_batch": 32, "iterations": 360}
)";

class VnexecPolicies : public VnexecMpi, public ::testing::WithParamInterface<const char*> {};

TEST_P(VnexecPolicies, EveryJobEndsWithTheParametersOfOneBigBatchInOneProcess) {
  // The finish checksum equals a single-process run on one big batch only
  // if the MPI all-reduce returned the exact sum, the virtual nodes'
  // micro-batches accumulated to the big batch, and (vf-wfs) the in-place
  // resize carried the parameters over unchanged.
  const fs::path trace = write("trace.jsonl", kTwoJobTrace);
  const fs::path spec = write("cluster.json", testbed_spec(3));
  ASSERT_EQ(vnexec(4, "run --trace " + trace.string() + " --cluster " + spec.string() + " --out " +
                          (dir_ / "run").string() + " --compute-scale 2e8 --checkpoint-every 10 --policy " +
                          GetParam()),
            0)
      << log();
  const auto finished = events("finish");
  ASSERT_EQ(finished.size(), 2u) << log();
  for (const auto& f : finished) {
    const bool is_a = f["job"] == "a";
    EXPECT_EQ(f["checksum"], reference_checksum("cifar10", is_a ? 64 : 32, is_a ? 30 : 360, 2e8)) << f.dump();
    EXPECT_TRUE(f["params_consistent"].get<bool>()) << f.dump();
  }
  EXPECT_EQ(events("iteration").size(), 30u + 360u);
  if (std::string(GetParam()) == "vf-wfs") {
    const auto resizes = events("resize");
    ASSERT_FALSE(resizes.empty()) << "vf-wfs did not grow b when a finished";
    EXPECT_TRUE(resizes[0]["in_place"].get<bool>());
    for (const auto& r : events("resized")) EXPECT_TRUE(r["params_consistent"].get<bool>()) << r.dump();
  }
}

INSTANTIATE_TEST_SUITE_P(FifoAndVfWfs, VnexecPolicies, ::testing::Values("fifo", "vf-wfs"),
                         [](const auto& p) { return std::string(p.param) == "fifo" ? "fifo" : "vf_wfs"; });

TEST_F(VnexecMpi, AKilledWorkerProcessLosesNoJobWhenTheRunIsResumed) {
  const fs::path trace = write("trace.jsonl", kTwoJobTrace);
  const fs::path spec = write("cluster.json", testbed_spec(3));
  const fs::path run = dir_ / "run";
  // An earlier run's results in the folder: a killed attempt must not leave
  // them looking like its own.
  fs::create_directories(run);
  write("run/jobs.csv", "job_id\nearlier\n");
  write("run/summary.json", "{}\n");
  const std::string command =
      mpirun(4,
             "run --trace " + trace.string() + " --cluster " + spec.string() + " --out " + run.string() +
                 " --compute-scale 2e8 --checkpoint-every 5 --policy fifo",
             "attempt1.txt");
  const pid_t shell = ::fork();
  ASSERT_GE(shell, 0);
  if (shell == 0) {
    ::execl("/bin/sh", "sh", "-c", command.c_str(), static_cast<char*>(nullptr));
    ::_exit(127);
  }
  // Wait until job a has passed its first checkpoint (step 5), then kill -9
  // worker 0, a member of a, as a crash would.
  long long pid = -1;
  for (int waited_ms = 0; waited_ms < 120000 && pid < 0; waited_ms += 5) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
    int status = 0;
    if (::waitpid(shell, &status, WNOHANG) == shell)
      FAIL() << "the run ended before the kill: " << slurp(dir_ / "attempt1.txt");
    bool past_checkpoint = false;
    try {
      for (const auto& it : events("iteration")) past_checkpoint |= it["job"] == "a" && it["iteration"] >= 6;
      if (!past_checkpoint || !fs::exists(run / "ranks.json")) continue;
      const auto table = nlohmann::json::parse(slurp(run / "ranks.json"));
      for (const auto& r : table["ranks"])
        if (r["rank"] == 1) pid = r["pid"].get<long long>();
    } catch (const nlohmann::json::parse_error&) {
      continue;  // read a line or file while it was being written
    }
  }
  ASSERT_GT(pid, 0) << "job a never passed step 6";
  ASSERT_EQ(::kill(static_cast<pid_t>(pid), SIGKILL), 0);
  int status = 0;
  ASSERT_EQ(::waitpid(shell, &status, 0), shell);
  EXPECT_FALSE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "mpirun survived a killed rank?";
  EXPECT_TRUE(events("finish").size() < 2u) << "the kill came too late to test anything";
  EXPECT_FALSE(fs::exists(run / "jobs.csv"));
  EXPECT_FALSE(fs::exists(run / "summary.json"));

  ASSERT_EQ(exit_code(mpirun(4, "run --resume " + run.string(), "attempt2.txt")), 0)
      << slurp(dir_ / "attempt2.txt");
  // The killed attempt is reported: the running job lost the steps after its last checkpoint.
  ASSERT_EQ(events("resume").size(), 1u);
  const auto lost = events("lost");
  ASSERT_EQ(lost.size(), 1u) << "worker 0 runs one job at a time here";
  const std::string victim = lost[0]["job"];  // a, or b if a finished just before the kill
  const long long resume_at = lost[0]["resume_iteration"];
  if (victim == "a") {
    EXPECT_GE(resume_at, 5);
  }
  EXPECT_EQ(resume_at % 5, 0);
  EXPECT_GE(lost[0]["iterations_seen"].get<long long>(), resume_at);
  // It restarts from that checkpoint in a new segment; both jobs finish once,
  // with the parameters of an uninterrupted run.
  bool relaunched = false;
  for (const auto& l : events("launch"))
    if (l["job"] == victim && l["epoch"] > lost[0]["epoch"]) relaunched = l["start_iteration"] == resume_at;
  EXPECT_TRUE(relaunched);
  const auto finished = events("finish");
  ASSERT_EQ(finished.size(), 2u) << slurp(dir_ / "attempt2.txt");
  for (const auto& f : finished) {
    const bool is_a = f["job"] == "a";
    EXPECT_EQ(f["checksum"], reference_checksum("cifar10", is_a ? 64 : 32, is_a ? 30 : 360, 2e8)) << f.dump();
  }
  const std::string jobs = slurp(run / "jobs.csv");
  EXPECT_EQ(std::count(jobs.begin(), jobs.end(), '\n'), 3) << jobs;  // header + 2 rows
  EXPECT_EQ(jobs.find("REJECTED"), std::string::npos) << jobs;
  for (const auto& entry : fs::directory_iterator(run))  // the results were renamed into place
    EXPECT_EQ(entry.path().filename().string().find(".partial-"), std::string::npos) << entry.path();
}

TEST_F(VnexecMpi, ResumeRejectsOtherOptionsAndFoldersThatAreNotRuns) {
  EXPECT_NE(vnexec(3, "run --resume " + dir_.string() + " --policy fifo"), 0);
  EXPECT_NE(log().find("cannot be combined"), std::string::npos) << log();
  EXPECT_NE(vnexec(3, "run --resume " + (dir_ / "nothing").string()), 0);
  EXPECT_NE(log().find("run_config.json"), std::string::npos) << log();
}

}  // namespace
