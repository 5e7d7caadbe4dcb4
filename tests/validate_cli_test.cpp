// End-to-end test of `vnsim validate` on the CPU testbed: vnexec calibrates
// the testbed and runs one small trace under two policies with
// `mpirun --oversubscribe -np 4`, then vnsim validates both runs and ranks
// the policies (docs/VALIDATION.md). Skipped when mpirun is not installed.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "command_support.hpp"

namespace {

namespace fs = std::filesystem;
using vnsim::testing::exit_code;
using vnsim::testing::slurp;

// a: 4 virtual nodes on 2 of the 3 workers; b arrives while a runs (fifo
// queues it, vf-wfs starts it on the third worker and grows it later).
const char* const kTrace =
    R"({"id": "a", "submit_s": 0, "gpus": 2, "virtual_nodes": 4, "model": "cifar10", "global_batch": 64, "iterations": 30}
{"id": "b", "submit_s": 0.05, "gpus": 2, "model": "cifar10", "global_batch": 32, "iterations": 60}
)";

// Every row of a CSV file with a header line and no quoted commas, by
// column name (jobs.csv and allocations.csv of `vnsim replay` and `vnexec
// run`, validation_jobs.csv of `vnsim validate`).
std::vector<std::map<std::string, std::string>> read_csv_rows(const fs::path& path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  std::vector<std::string> header;
  std::stringstream h(line);
  for (std::string f; std::getline(h, f, ',');) header.push_back(f);
  std::vector<std::map<std::string, std::string>> rows;
  while (std::getline(in, line)) {
    std::stringstream fields(line);
    std::map<std::string, std::string> row;
    std::size_t i = 0;
    for (std::string f; std::getline(fields, f, ',') && i < header.size(); ++i) row[header[i]] = f;
    rows.push_back(row);
  }
  return rows;
}

class ValidateCli : public ::testing::Test {
 protected:
  void SetUp() override {
    if (exit_code("command -v mpirun > /dev/null 2>&1") != 0) GTEST_SKIP() << "mpirun not installed";
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = fs::temp_directory_path() /
           ("vnsim-validate-" + std::string(info->name()) + "-" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    std::ofstream(dir_ / "trace.jsonl") << kTrace;
  }
  void TearDown() override {
    if (!dir_.empty()) fs::remove_all(dir_);
  }
  int vnexec(const std::string& args) {
    return exit_code("OMPI_MCA_rmaps_base_oversubscribe=1 mpirun --allow-run-as-root --oversubscribe -np 4 " +
                     std::string(VNEXEC_PATH) + " " + args + " > " + (dir_ / "vnexec.txt").string() +
                     " 2>&1");
  }
  int vnsim(const std::string& args) {
    return exit_code(std::string(VNSIM_CLI_PATH) + " " + args + " > " + (dir_ / "out.txt").string() + " 2> " +
                     (dir_ / "err.txt").string());
  }
  // Calibrates the 3-worker testbed and runs the trace under `policy`.
  void run_policy(const std::string& policy) {
    if (!fs::exists(dir_ / "cal" / "models.json")) {
      ASSERT_EQ(vnexec("calibrate --models cifar10 --repetitions 2 --compute-scale 2e8 --out " +
                       (dir_ / "cal").string()),
                0)
          << slurp(dir_ / "vnexec.txt");
    }
    ASSERT_EQ(vnexec("run --trace " + (dir_ / "trace.jsonl").string() + " --cluster " +
                     (dir_ / "cal" / "cluster.json").string() + " --profile " +
                     (dir_ / "cal" / "models.json").string() + " --compute-scale 2e8 --policy " + policy +
                     " --out " + (dir_ / "runs" / policy).string()),
              0)
        << slurp(dir_ / "vnexec.txt");
  }
  std::string out() const { return slurp(dir_ / "out.txt"); }
  std::string err() const { return slurp(dir_ / "err.txt"); }
  fs::path dir_;
};

TEST_F(ValidateCli, TwoPoliciesOnTheCpuTestbedGiveErrorStatisticsAndARanking) {
  run_policy("fifo");
  run_policy("vf-wfs");
  ASSERT_EQ(vnsim("validate --run " + (dir_ / "runs").string() + " --out " + (dir_ / "all.json").string()), 0)
      << out() << err();
  const std::string text = out();
  for (const char* line :
       {"iteration time  n=", "compute         n=", "JCT             n=2", "mean JCT        measured",
        "makespan        measured", "policy ranking by mean JCT over 2 runs", "Kendall tau-b"})
    EXPECT_NE(text.find(line), std::string::npos) << line << "\n" << text;
  for (const char* stat : {"MAPE", "p90", "max", "bias"})
    EXPECT_NE(text.find(stat), std::string::npos) << stat;
  EXPECT_NE(text.find("(fifo policy"), std::string::npos) << text;
  EXPECT_NE(text.find("(vf-wfs policy"), std::string::npos) << text;

  const auto all = nlohmann::json::parse(slurp(dir_ / "all.json"));
  ASSERT_EQ(all["runs"].size(), 2u);
  const auto& ranking = all["ranking"];
  EXPECT_EQ(ranking["measured_order"].size(), 2u);
  // Two runs make one pair: concordant (tau 1) or discordant (tau -1), or tied on one side.
  EXPECT_EQ(ranking["concordant_pairs"].get<int>() + ranking["discordant_pairs"].get<int>() +
                ranking["tied_measured_only"].get<int>() + ranking["tied_predicted_only"].get<int>() +
                ranking["tied_both"].get<int>(),
            1);
  for (const char* policy : {"fifo", "vf-wfs"}) {
    // --out keeps the run folders as they were: each run's files go beside it.
    EXPECT_FALSE(fs::exists(dir_ / "runs" / policy / "validation.json")) << policy;
    EXPECT_FALSE(fs::exists(dir_ / "runs" / policy / "validation_iterations.csv")) << policy;
    const fs::path run = dir_ / "all.json.runs" / policy;
    const auto v = nlohmann::json::parse(slurp(run / "validation.json"));
    // Every step but the first of each segment is compared (2 jobs, 90 steps).
    EXPECT_GE(v["iteration_time"]["count"].get<int>(), 90 - 4) << policy;
    EXPECT_LE(v["iteration_time"]["count"].get<int>(), 90 - 2) << policy;
    EXPECT_EQ(v["jct"]["count"], 2) << policy;
    EXPECT_GT(v["measured_mean_jct_s"].get<double>(), 0) << policy;
    const std::string csv = slurp(run / "validation_iterations.csv");
    EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), v["iteration_time"]["count"].get<int>() + 1)
        << policy;
    // One model (cifar10): the run's probe scales the spec's line through it.
    EXPECT_EQ(v["transport"]["links"], "transport probe") << policy;
    EXPECT_EQ(v["transport"]["probe"].size(), 1u) << policy;
  }
  // --calibrated-links keeps the cluster spec's links, and says so.
  ASSERT_EQ(vnsim("validate --calibrated-links --run " + (dir_ / "runs" / "fifo").string() + " --out " +
                  (dir_ / "calibrated.json").string()),
            0)
      << out() << err();
  EXPECT_NE(out().find("all-reduce predicted from: cluster spec"), std::string::npos) << out();
  const auto calibrated = nlohmann::json::parse(slurp(dir_ / "calibrated.json"));
  EXPECT_EQ(calibrated["transport"]["links"], "cluster spec");
  EXPECT_TRUE(calibrated["transport"]["probe_ring"].is_object());
}

// vnexec run --vc-quotas: x1 and x2 of VC x (quota 1 GPU) run one after the
// other while y1 of VC y (quota 2) starts at once on the 3-worker testbed,
// where plain fifo would start all three together. The run keeps the quotas
// it used, and `vnsim validate` predicts it within the same quotas: x2's
// predicted JCT includes its wait for x1, so it exceeds x1's (alone, x2's
// 20 steps would end before x1's 30).
TEST_F(ValidateCli, VcQuotasHoldOnTheTestbedAndInItsPrediction) {
  std::ofstream(dir_ / "vc_trace.jsonl")
      << R"({"id": "x1", "submit_s": 0, "gpus": 1, "vc": "x", "model": "cifar10", "global_batch": 32, "iterations": 30}
{"id": "x2", "submit_s": 0.01, "gpus": 1, "vc": "x", "model": "cifar10", "global_batch": 32, "iterations": 20}
{"id": "y1", "submit_s": 0.02, "gpus": 1, "vc": "y", "model": "cifar10", "global_batch": 32, "iterations": 20}
)";
  std::ofstream(dir_ / "quotas.csv") << "vc,gpus\nx,1\ny,2\n";
  ASSERT_EQ(vnexec("calibrate --models cifar10 --repetitions 2 --compute-scale 2e8 --out " +
                   (dir_ / "cal").string()),
            0)
      << slurp(dir_ / "vnexec.txt");
  const std::string run = (dir_ / "runs" / "fifo").string();
  const std::string inputs = "run --trace " + (dir_ / "vc_trace.jsonl").string() + " --cluster " +
                             (dir_ / "cal" / "cluster.json").string() + " --profile " +
                             (dir_ / "cal" / "models.json").string() + " --compute-scale 2e8 --policy fifo";
  // Quotas and noise profiles do not combine (as in vnsim replay), nor borrowing without quotas.
  EXPECT_EQ(vnexec(inputs + " --vc-quotas " + (dir_ / "quotas.csv").string() + " --noise " +
                   (dir_ / "cal" / "noise.json").string() + " --out " + run),
            2);
  EXPECT_EQ(vnexec(inputs + " --vc-borrow on --out " + run), 2);
  ASSERT_EQ(vnexec(inputs + " --vc-quotas " + (dir_ / "quotas.csv").string() + " --out " + run), 0)
      << slurp(dir_ / "vnexec.txt");
  EXPECT_EQ(slurp(dir_ / "runs" / "fifo" / "vc_quotas.csv"), "vc,gpus\nx,1\ny,2\n");
  const auto config = nlohmann::json::parse(slurp(dir_ / "runs" / "fifo" / "run_config.json"));
  EXPECT_EQ(config["vc_quotas"], "vc_quotas.csv");
  EXPECT_EQ(config["vc_borrow"], false);

  std::map<std::string, std::pair<double, double>> measured;  // job -> (start, finish)
  for (auto& row : read_csv_rows(dir_ / "runs" / "fifo" / "jobs.csv"))
    measured[row["job_id"]] = {std::stod(row["starting_time"]), std::stod(row["finish_time"])};
  ASSERT_EQ(measured.size(), 3u);
  EXPECT_GE(measured["x2"].first, measured["x1"].second);  // x waits at its quota
  EXPECT_LT(measured["y1"].first, measured["x1"].second);  // y does not wait for x

  ASSERT_EQ(vnsim("validate --run " + run + " --out " + (dir_ / "vc.json").string()), 0) << out() << err();
  std::map<std::string, double> predicted;  // job -> predicted JCT
  for (auto& row : read_csv_rows(dir_ / "vc.json.runs" / "fifo" / "validation_jobs.csv"))
    predicted[row["job"]] = std::stod(row["predicted_jct_s"]);
  ASSERT_EQ(predicted.size(), 3u);
  EXPECT_GT(predicted["x2"], predicted["x1"]);

  // --resume takes the quotas back from the run folder: the resumed run's
  // policy is still the quota-wrapped one.
  ASSERT_EQ(vnexec("run --resume " + run), 0) << slurp(dir_ / "vnexec.txt");
  EXPECT_NE(slurp(dir_ / "runs" / "fifo" / "summary.json").find("\"fifo+vc-quota\""), std::string::npos);

  // A run folder whose quotas lost their borrowing flag is a clear error,
  // not a prediction without borrowing.
  auto damaged = config;
  damaged.erase("vc_borrow");
  std::ofstream(dir_ / "runs" / "fifo" / "run_config.json") << damaged.dump(2);
  EXPECT_EQ(vnsim("validate --run " + run), 2);
  EXPECT_NE(err().find("'vc_borrow'"), std::string::npos) << err();
}

// The 1-minute load average (/proc/loadavg; -1 when unreadable).
double load_average() {
  std::ifstream in("/proc/loadavg");
  double load = -1;
  in >> load;
  return load;
}

// docs/VALIDATION.md's protocol, shortened: calibrate 2 workers (transport
// and gradient noise), run 3 jobs under fifo and pollux with gradients of
// 64 KB-1 MB (--gradient-fraction 0.01, the transport's copy-bound range),
// validate both. Every error of the report must be finite, and the
// all-reduce term predicted within a factor of 3 (below): the median over
// the compared steps, a statistic that descheduled steps (outliers on a
// shared machine) do not move.
TEST_F(ValidateCli, ShortValidationHasFiniteErrorsAndPredictsTheAllReduce) {
  std::ofstream(dir_ / "short.jsonl")
      << R"({"id": "a", "submit_s": 0, "gpus": 2, "virtual_nodes": 4, "model": "cifar10", "global_batch": 64, "iterations": 60}
{"id": "b", "submit_s": 0.05, "gpus": 1, "model": "ncf", "global_batch": 1024, "iterations": 200}
{"id": "c", "submit_s": 0.1, "gpus": 2, "model": "imagenet", "global_batch": 32, "iterations": 20}
)";
  // Real-time workers (where permitted): a shared CI machine does not
  // deschedule them inside a step (docs/VALIDATION.md, "Honest on a shared
  // machine"); where refused, vnexec says so and runs them as before.
  const std::string scale = " --compute-scale 2e8 --gradient-fraction 0.01 --realtime 10";
  // Whether every rank of every launch got the real-time class: vnexec
  // prints one "vnexec: --realtime ..." line per rank it was refused to.
  bool realtime_granted = true;
  const auto mpirun3 = [&](const std::string& args) {
    const auto note_refusal = [&](int code) {
      if (slurp(dir_ / "vnexec.txt").find("vnexec: --realtime") != std::string::npos)
        realtime_granted = false;
      return code;
    };
    return note_refusal(
        exit_code("OMPI_MCA_rmaps_base_oversubscribe=1 mpirun --allow-run-as-root --oversubscribe -np 3 " +
                  std::string(VNEXEC_PATH) + " " + args + " > " + (dir_ / "vnexec.txt").string() + " 2>&1"));
  };
  const double load_before = load_average();
  ASSERT_EQ(mpirun3("calibrate --models cifar10,ncf,imagenet --repetitions 5" + scale + " --out " +
                    (dir_ / "cal").string()),
            0)
      << slurp(dir_ / "vnexec.txt");
  for (const std::string policy : {"fifo", "pollux"}) {
    ASSERT_EQ(mpirun3("run --trace " + (dir_ / "short.jsonl").string() + " --cluster " +
                      (dir_ / "cal" / "cluster.json").string() + " --profile " +
                      (dir_ / "cal" / "models.json").string() + " --noise " +
                      (dir_ / "cal" / "noise.json").string() + scale + " --policy " + policy +
                      (policy == "pollux" ? " --policy-param interval_s=0.2" : "") + " --out " +
                      (dir_ / "runs" / policy).string()),
              0)
        << slurp(dir_ / "vnexec.txt");
  }
  const double load = std::max(load_before, load_average());
  ASSERT_EQ(vnsim("validate --run " + (dir_ / "runs").string() + " --out " + (dir_ / "all.json").string()), 0)
      << out() << err();
  const auto all = nlohmann::json::parse(slurp(dir_ / "all.json"));
  ASSERT_EQ(all["runs"].size(), 2u);
  ASSERT_TRUE(all["ranking"]["kendall_tau_b"].is_number()) << all["ranking"].dump();
  EXPECT_TRUE(std::isfinite(all["ranking"]["kendall_tau_b"].get<double>()));
  for (const auto& run : all["runs"]) {
    const std::string policy = run["policy"];
    // Each run timed its trace's 3 models' all-reduce at its start and end,
    // and the prediction used the start probe (vnexec run, transport.json).
    const auto probe = nlohmann::json::parse(slurp(dir_ / "runs" / policy / "transport.json"));
    EXPECT_EQ(probe["start"].size(), 3u) << policy;
    EXPECT_EQ(probe["end"].size(), 3u) << policy;
    EXPECT_EQ(run["transport"]["links"], "transport probe") << policy;
    EXPECT_GT(run["transport"]["probe_ring"]["bandwidth_Bps"].get<double>(), 0) << policy;
    for (const char* stat : {"iteration_time", "compute_time", "allreduce_time", "jct"}) {
      // fifo runs a and c on their 2 workers, so it all-reduces; pollux may
      // give every job a single worker (no all-reduce at all).
      if (std::string(stat) != "allreduce_time" || policy == "fifo") {
        EXPECT_GT(run[stat]["count"].get<int>(), 0) << policy << " " << stat;
      }
      for (const char* field : {"mape", "p90", "max", "mean_signed"})
        EXPECT_TRUE(run[stat][field].is_number() && std::isfinite(run[stat][field].get<double>()))
            << policy << " " << stat << "." << field;
    }
    // Per segment: each segment's median step against its one prediction,
    // and the step noise floor (vnsim validate, docs/REAL_EXEC.md).
    for (const char* stat : {"iteration_time", "compute_time", "allreduce_time"}) {
      const auto& segments = run[stat]["segments"];
      if (std::string(stat) != "allreduce_time" || policy == "fifo") {
        EXPECT_GT(segments["count"].get<int>(), 0) << policy << " " << stat;
      }
      for (const char* field : {"median_mape", "median_max", "noise_floor_mape"})
        EXPECT_TRUE(segments[field].is_number() && std::isfinite(segments[field].get<double>()))
            << policy << " " << stat << ".segments." << field;
    }
    EXPECT_EQ(run["jct"]["count"], 3) << policy;
    for (const char* field :
         {"mean_jct_error", "makespan_error", "measured_mean_jct_s", "predicted_mean_jct_s"})
      EXPECT_TRUE(run[field].is_number() && std::isfinite(run[field].get<double>()))
          << policy << " " << field;

    // Per compared step: predicted against measured all-reduce.
    std::ifstream csv(dir_ / "all.json.runs" / policy / "validation_iterations.csv");
    std::string line;
    std::getline(csv, line);
    ASSERT_NE(line.find("predicted_allreduce_s,measured_allreduce_s"), std::string::npos) << line;
    // |ln(predicted / measured)| per step: symmetric in over- and
    // under-prediction, unlike the relative error, which cannot exceed 1 for
    // an under-prediction.
    std::vector<double> log_ratios, errors;
    while (std::getline(csv, line)) {
      std::vector<double> cols;
      std::stringstream fields(line.substr(line.find(',') + 1));  // after the job id
      for (std::string f; std::getline(fields, f, ',');) cols.push_back(std::stod(f));
      const double predicted = cols.at(cols.size() - 2), measured = cols.back();
      if (predicted > 0 && measured > 0) {
        log_ratios.push_back(std::abs(std::log(predicted / measured)));
        errors.push_back(std::abs(predicted - measured) / measured);
      }
    }
    if (policy != "fifo" && errors.empty()) continue;
    ASSERT_FALSE(errors.empty()) << policy << ": no step with a predicted all-reduce";
    const auto median_of = [](std::vector<double> v) {
      std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(v.size() / 2), v.end());
      return v[v.size() / 2];
    };
    // A CI machine is neither idle nor ours alone: its 2 ranks spin inside the
    // collective and lose their cores to whatever else runs (the median error
    // went from under 30% here to 35-60% on CI). So this test checks the
    // order of magnitude, which still fails for a dropped term, bits for
    // bytes or a missing (p-1)/p; the 10% target belongs to the repeated
    // idle-machine validation of docs/VALIDATION.md.
    // Without the real-time class (a container without CAP_SYS_NICE, a
    // kernel without real-time throttling) the ranks are descheduled inside
    // the collective on a busy machine, and the span measured is the
    // scheduler's (95-98% median error at a load of 20 here): the bound is
    // then reported, not asserted.
    const double median_log_ratio = median_of(log_ratios);
    if (realtime_granted) {
      EXPECT_LE(median_log_ratio, std::log(3.0))
          << policy << ": all-reduce predicted more than 3x off (median over " << errors.size() << " steps)";
    }
    std::printf("%s: all-reduce median error %.1f%% over %zu steps, load average %.1f on %u cores%s\n",
                policy.c_str(), 100 * median_of(errors), errors.size(), load,
                std::thread::hardware_concurrency(),
                realtime_granted ? "" : " (no real-time class: not checked)");
  }
}

TEST_F(ValidateCli, VnexecHelpPrintsTheUsageAndExitsZeroUnderMpirunOrAlone) {
  for (const std::string cmd : {"run", "calibrate"}) {
    ASSERT_EQ(vnexec(cmd + " --help"), 0) << slurp(dir_ / "vnexec.txt");
    const std::string text = slurp(dir_ / "vnexec.txt");
    EXPECT_NE(text.find("vnexec run --trace"), std::string::npos) << text;
    EXPECT_EQ(text.find("MPI_ABORT"), std::string::npos) << text;
    EXPECT_EQ(exit_code(std::string(VNEXEC_PATH) + " " + cmd + " --trace x -h > /dev/null"), 0);
  }
}

TEST_F(ValidateCli, RunsOfDifferentTracesOrMissingFoldersAreClearErrors) {
  run_policy("fifo");
  fs::create_directories(dir_ / "other");
  fs::copy(dir_ / "runs" / "fifo", dir_ / "other" / "fifo", fs::copy_options::recursive);
  std::ofstream(dir_ / "other" / "fifo" / "trace.jsonl", std::ios::app) << "\n";
  EXPECT_EQ(vnsim("validate --run " + (dir_ / "runs" / "fifo").string() + " --run " +
                  (dir_ / "other" / "fifo").string()),
            2);
  EXPECT_NE(err().find("executed a different trace"), std::string::npos) << err();
  EXPECT_EQ(vnsim("validate --run " + (dir_ / "missing").string()), 2);
  EXPECT_NE(err().find((dir_ / "missing").string()), std::string::npos) << err();
}

// The validation workload (docs/VALIDATION.md), as the simulator predicts it
// on the testbed calibration it was sized with (`vnsim replay --profile
// --noise`): under vf-wfs every elastic job (2 GPUs, 2 or more virtual
// nodes) is resized at least once, the four policies' mean JCTs differ
// pairwise by at least 10%, so that the ranking check means something, and
// one repetition of the four stays within about 25 minutes.
TEST(ValidationWorkload, EveryElasticJobResizesUnderVfWfsAndThePoliciesMeanJctsDiffer) {
  const fs::path config = fs::path(VNSIM_SOURCE_DIR) / "experiments" / "configs" / "validation";
  const fs::path dir =
      fs::temp_directory_path() / ("vnsim-validation-workload-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  const std::string common = " --cluster " + (config / "cal" / "cluster.json").string() + " --trace " +
                             (config / "elastic16.jsonl").string() + " --format jsonl --quiet";
  const std::string calibrated = " --profile " + (config / "cal" / "models.json").string() + " --noise " +
                                 (config / "cal" / "noise.json").string();
  const std::vector<std::pair<std::string, std::string>> policies = {
      {"fifo", ""},
      {"tiresias", " --policy-param thresholds=20"},
      {"vf-wfs", ""},
      {"pollux", " --policy-param interval_s=10"}};
  std::vector<double> means;
  double makespans = 0;
  for (const auto& [policy, params] : policies) {
    ASSERT_EQ(exit_code(std::string(VNSIM_CLI_PATH) + " replay" + common + calibrated + " --policy " +
                        policy + params + " --out " + (dir / policy).string() + " > /dev/null 2>&1"),
              0)
        << policy;
    double sum = 0, makespan = 0;
    const auto jobs = read_csv_rows(dir / policy / "jobs.csv");
    ASSERT_EQ(jobs.size(), 16u) << policy;
    for (const auto& j : jobs) {
      EXPECT_EQ(j.at("final_state"), "COMPLETED") << policy << " " << j.at("job_id");
      sum += std::stod(j.at("turnaround_time"));
      makespan = std::max(makespan, std::stod(j.at("finish_time")));
    }
    means.push_back(sum / static_cast<double>(jobs.size()));
    makespans += makespan;
  }
  std::vector<double> sorted = means;
  std::sort(sorted.begin(), sorted.end());
  for (std::size_t i = 1; i < sorted.size(); ++i)
    EXPECT_GE(sorted[i] / sorted[i - 1], 1.10) << "two policies' predicted mean JCTs within 10%";
  EXPECT_LE(makespans, 25 * 60.0) << "one repetition of the four policies";

  std::map<std::string, int> resizes;
  for (const auto& a : read_csv_rows(dir / "vf-wfs" / "allocations.csv"))
    if (a.at("event") == "take" && a.at("cause") == "resize") ++resizes[a.at("job_id")];
  std::ifstream trace(config / "elastic16.jsonl");
  int elastic = 0;
  for (std::string line; std::getline(trace, line);) {
    const auto job = nlohmann::json::parse(line);
    if (job["gpus"].get<int>() < 2 || job.value("virtual_nodes", 1) < 2) continue;
    ++elastic;
    EXPECT_GE(resizes[job["id"].get<std::string>()], 1) << job["id"] << " never resized under vf-wfs";
  }
  EXPECT_GE(elastic, 6);

  // The profile is what sizes the prediction: the catalog's own models give
  // another schedule.
  ASSERT_EQ(exit_code(std::string(VNSIM_CLI_PATH) + " replay" + common + " --policy fifo --out " +
                      (dir / "catalog").string() + " > /dev/null 2>&1"),
            0);
  EXPECT_NE(slurp(dir / "catalog" / "jobs.csv"), slurp(dir / "fifo" / "jobs.csv"));
  fs::remove_all(dir);
}

// Small committed CPU-testbed runs (tests/validation_runs: 6 jobs, three
// policies) re-validated into a notebook: needs no MPI, only the Python
// stack of scripts/setup. (The protocol's runs in notebooks_out/validation
// keep no step logs in git: 24 MB a run.)
TEST(ValidateReport, TheCommittedRunsGiveAnExecutedNotebookWithItsPlots) {
  if (exit_code(
          "/usr/bin/python3 -c 'import nbformat, nbconvert, pandas, matplotlib, ipykernel' 2>/dev/null") != 0)
    GTEST_SKIP() << "python3 with nbformat, nbconvert, pandas, matplotlib and ipykernel not installed";
  const fs::path committed = fs::path(VNSIM_SOURCE_DIR) / "tests" / "validation_runs" / "runs";
  ASSERT_TRUE(fs::is_directory(committed)) << committed;
  const fs::path dir = fs::temp_directory_path() / ("vnsim-validate-report-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  fs::copy(committed, dir / "runs", fs::copy_options::recursive);  // validate writes into the run folders
  const int code =
      exit_code(std::string(VNSIM_CLI_PATH) + " validate --run " + (dir / "runs").string() + " --report " +
                (dir / "report").string() + " > " + (dir / "out.txt").string() + " 2>&1");
  const std::string notebook = slurp(dir / "report" / "validation.ipynb");
  EXPECT_EQ(code, 0) << slurp(dir / "out.txt");
  EXPECT_NE(slurp(dir / "out.txt").find("Kendall tau-b"), std::string::npos);
  EXPECT_EQ(notebook.find("\"output_type\": \"error\""), std::string::npos) << "a notebook cell raised";
  EXPECT_NE(notebook.find("image/png"), std::string::npos);
  for (const char* png :
       {"iteration_scatter.png", "iteration_error_cdf.png", "jct_error_cdf.png", "mean_jct_by_policy.png"})
    EXPECT_TRUE(fs::exists(dir / "report" / png) && fs::file_size(dir / "report" / png) > 1000u) << png;
  fs::remove_all(dir);
}

}  // namespace
