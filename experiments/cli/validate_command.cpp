// `vnsim validate --run RUN_DIR`: replays what a vnexec run executed (its
// trace, testbed spec, profile and policy, recorded in run_config.json) in
// the simulator and reports how far the prediction is from the measurement
// (docs/REAL_EXEC.md, "Validation").
#include "validate_command.hpp"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "args.hpp"
#include "vnsim/core/cluster.hpp"
#include "vnsim/core/error.hpp"
#include "vnsim/core/gpu_catalog.hpp"
#include "vnsim/core/model_catalog.hpp"
#include "vnsim/core/topology.hpp"
#include "vnsim/policies/policy.hpp"
#include "vnsim/real_exec/validation.hpp"
#include "vnsim/real_exec/workload.hpp"
#include "vnsim/sim/replay.hpp"

namespace vnsim::cli {
namespace {

namespace fs = std::filesystem;

std::string slurp(const fs::path& p) {
  std::ifstream in(p);
  if (!in) throw InputError(p.string() + ": cannot read");
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// A path in run_config.json is relative to the run folder; a cluster may
// also be a preset name.
std::string resolve(const fs::path& run, const std::string& value) {
  const fs::path p = run / value;
  return fs::exists(p) ? p.string() : value;
}

void print_stats(const char* what, const real_exec::ErrorStats& s) {
  if (s.count == 0) {
    std::printf("  %-15s no samples\n", what);
    return;
  }
  std::printf("  %-15s n=%-6zu MAPE %6.2f%%  p90 %6.2f%%  max %6.2f%%  bias %+6.2f%%\n", what, s.count,
              100 * s.mape, 100 * s.p90, 100 * s.max, 100 * s.mean_signed);
}

}  // namespace

const char* validate_usage() {
  return "vnsim validate --run RUN_DIR [--out FILE] [--skip-first K]\n";
}

int run_validate_command(const std::vector<std::string>& argv) {
  const Args args(argv, {"--run", "--out", "--skip-first"}, {});
  const fs::path run = args.require("--run");
  const fs::path config_path = run / "run_config.json";
  const auto config = nlohmann::json::parse(slurp(config_path), nullptr, false);
  if (config.is_discarded() || !config.is_object())
    throw InputError(config_path.string() + ": not a JSON object (was the folder written by vnexec run?)");
  const auto text = [&](const char* key) {
    if (!config.contains(key) || !config[key].is_string())
      throw InputError(config_path.string() + ": field '" + std::string(key) + "' missing or not a string");
    return config[key].get<std::string>();
  };
  const int skip_first = static_cast<int>(parse_integer("--skip-first", args.get_or("--skip-first", "1"), 0));

  const Cluster cluster(load_cluster_spec(resolve(run, text("cluster"))));
  const ModelCatalog profile =
      config.contains("profile")
          ? ModelCatalog::parse(slurp(run / text("profile")), (run / text("profile")).string())
          : ModelCatalog::builtin();
  // The executed trace holds submit times already in executor time.
  const std::vector<JobSpec> jobs = real_exec::read_executor_trace((run / text("trace")).string(), 1.0);
  PolicyParams params;
  if (config.contains("policy_params")) params = config["policy_params"].get<PolicyParams>();
  std::unique_ptr<Policy> policy = make_policy(text("policy"), params);

  ReplayOptions options;
  options.macro_iterations = 0;  // every iteration simulated: the traces vnexec runs are small
  const ReplayResult predicted = run_replay(cluster, GpuCatalog::builtin(), profile, jobs, *policy, options);

  std::map<std::string, std::string> model_of_job;
  for (const JobSpec& j : jobs) model_of_job[j.id] = j.model;
  const Topology topology(cluster);
  const real_exec::MeasuredRun measured =
      real_exec::read_measurement_log((run / "measurements.jsonl").string());
  const real_exec::ValidationReport report = real_exec::compare_run(
      measured, predicted.jobs, topology, GpuCatalog::builtin(), profile, model_of_job, skip_first);

  nlohmann::ordered_json out = report.to_json();
  out["run"] = run.string();
  out["policy"] = policy->name();
  out["skip_first"] = skip_first;
  const fs::path out_path = args.get_or("--out", (run / "validation.json").string());
  std::ofstream(out_path) << out.dump(2) << "\n";

  std::printf("vnsim validate: %s (%s policy, %zu jobs)\n", run.string().c_str(), policy->name().c_str(),
              jobs.size());
  std::printf("prediction error (predicted vs measured, relative):\n");
  print_stats("iteration time", report.iteration);
  print_stats("compute", report.compute);
  print_stats("all-reduce", report.allreduce);
  print_stats("JCT", report.jct);
  std::printf("  makespan        measured %.3f s, predicted %.3f s\n", report.measured_makespan_s,
              report.predicted_makespan_s);
  std::printf("output: %s\n", out_path.string().c_str());
  return 0;
}

}  // namespace vnsim::cli
