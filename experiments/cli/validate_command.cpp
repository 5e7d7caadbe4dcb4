// `vnsim validate --run RUN_DIR...`: replays what each vnexec run executed
// (its trace, testbed spec, profile and policy, recorded in run_config.json)
// in the simulator and reports how far the prediction is from the
// measurement; with several runs of one trace (one per policy), also whether
// the simulator ranks the policies as the testbed did (docs/REAL_EXEC.md,
// "Validation"; docs/VALIDATION.md).
#include "validate_command.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <sstream>

#include "args.hpp"
#include "notebook_runner.hpp"
#include "vnsim/core/cluster.hpp"
#include "vnsim/core/error.hpp"
#include "vnsim/core/goodput.hpp"
#include "vnsim/core/gpu_catalog.hpp"
#include "vnsim/core/model_catalog.hpp"
#include "vnsim/core/text_file.hpp"
#include "vnsim/core/topology.hpp"
#include "vnsim/policies/policy.hpp"
#include "vnsim/policies/vc_quota_policy.hpp"
#include "vnsim/real_exec/ranking.hpp"
#include "vnsim/real_exec/transport_probe.hpp"
#include "vnsim/real_exec/validation.hpp"
#include "vnsim/real_exec/workload.hpp"
#include "vnsim/sim/replay.hpp"

namespace vnsim::cli {
namespace {

namespace fs = std::filesystem;

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

// The same term per run segment: each segment's median step against the
// prediction, and the per-step MAPE the segments' own medians would get.
void print_segments(const real_exec::SegmentStats& s) {
  if (s.segments == 0) return;
  std::printf("    per segment   n=%-6zu MAPE %6.2f%%  max %6.2f%%  (step noise floor %.2f%%)\n", s.segments,
              100 * s.median_mape, 100 * s.median_max, 100 * s.noise_floor_mape);
}

struct ValidatedRun {
  fs::path dir;
  std::string policy;
  real_exec::ValidationReport report;
  nlohmann::ordered_json transport;  // which links predicted the all-reduce
};

nlohmann::ordered_json ring_json(const real_exec::RingFit& r) {
  return {{"hop_latency_s", r.hop_latency_s}, {"bandwidth_Bps", r.bandwidth_Bps}};
}

// The run's own transport probe (vnexec run's transport.json), when it has
// one and `use_probe`: the testbed's intra-node links are set to the ring
// its start probe implies, measured in the run's launch before any job ran.
// Returns what was used, for the report.
nlohmann::ordered_json use_transport_probe(const fs::path& run, ClusterSpec& spec, bool use_probe) {
  nlohmann::ordered_json t;
  const fs::path file = run / "transport.json";
  const bool one_node = spec.racks.size() == 1 && spec.racks[0].nodes.size() == 1;
  t["links"] = "cluster spec";
  if (one_node) t["cluster_spec_ring"] = ring_json(real_exec::testbed_ring(spec));
  if (!fs::exists(file)) return t;
  const real_exec::TransportProbe probe =
      real_exec::parse_transport_probe(read_text_file(file), file.string());
  nlohmann::ordered_json drift = nlohmann::ordered_json::array();
  for (std::size_t i = 0; i < probe.start.size() && i < probe.end.size(); ++i)
    if (probe.start[i].model == probe.end[i].model)
      drift.push_back({{"model", probe.start[i].model},
                       {"start_s", probe.start[i].seconds},
                       {"end_s", probe.end[i].seconds},
                       {"end_over_start", probe.end[i].seconds / probe.start[i].seconds}});
  t["probe"] = drift;
  const std::optional<real_exec::RingFit> ring = real_exec::probed_ring(probe.start, spec);
  if (!ring) return t;
  t["probe_ring"] = ring_json(*ring);
  if (!use_probe) return t;
  real_exec::set_testbed_ring(spec, *ring);
  t["links"] = "transport probe";
  return t;
}

ValidatedRun validate_run(const fs::path& run, int skip_first, bool use_probe) {
  const fs::path config_path = run / "run_config.json";
  const auto config = nlohmann::json::parse(read_text_file(config_path), nullptr, false);
  if (config.is_discarded() || !config.is_object())
    throw InputError(config_path.string() + ": not a JSON object (was the folder written by vnexec run?)");
  const auto text = [&](const char* key) {
    if (!config.contains(key) || !config[key].is_string())
      throw InputError(config_path.string() + ": field '" + std::string(key) + "' missing or not a string");
    return config[key].get<std::string>();
  };
  ClusterSpec spec = load_cluster_spec(resolve(run, text("cluster")));
  nlohmann::ordered_json transport = use_transport_probe(run, spec, use_probe);
  const Cluster cluster(spec);
  const ModelCatalog profile =
      config.contains("profile")
          ? ModelCatalog::parse(read_text_file(run / text("profile")), (run / text("profile")).string())
          : ModelCatalog::builtin();
  // The executed trace holds submit times already in executor time.
  const fs::path trace = run / text("trace");
  const std::vector<JobSpec> jobs = real_exec::read_executor_trace(trace.string(), 1.0);
  PolicyParams params;
  if (config.contains("policy_params")) {
    if (!config["policy_params"].is_object())
      throw InputError(config_path.string() + ": field 'policy_params' must be an object");
    params = config["policy_params"].get<PolicyParams>();
  }
  // A run scheduled within VC quotas (vnexec run --vc-quotas) is predicted
  // within the same ones, from the file the run wrote.
  const std::string policy_name = text("policy");
  std::unique_ptr<Policy> policy;
  if (config.contains("vc_quotas")) {
    const VcQuotas quotas =
        vc_quotas_from_source((run / text("vc_quotas")).string(), jobs, cluster.gpu_count());
    // vnexec writes vc_borrow beside vc_quotas, and --resume requires it;
    // a run folder without it is damaged, not a run without borrowing.
    if (!config.contains("vc_borrow") || !config["vc_borrow"].is_boolean())
      throw InputError(config_path.string() +
                       ": field 'vc_borrow' missing or not a boolean (it goes with 'vc_quotas')");
    policy = make_vc_quota_policy(
        policy_name, [policy_name, params] { return make_policy(policy_name, params); }, quotas,
        config["vc_borrow"].get<bool>());
  } else {
    policy = make_policy(policy_name, params);
  }
  // The executor's measured gradient noise (vnexec run --noise): the same
  // profiles for the policy and for the work left after a batch change.
  std::optional<NoiseScaleCatalog> noise;
  if (config.contains("noise"))
    noise = NoiseScaleCatalog::parse(read_text_file(run / text("noise")), (run / text("noise")).string());
  if (noise) policy->use_noise_profiles(*noise);

  ReplayOptions options;
  if (noise) options.noise_profiles = &*noise;
  // Every iteration simulated by actors: the traces vnexec runs are small,
  // and the prediction should be the engine's most faithful one.
  options.fluid_rings = false;
  options.macro_iterations = 0;
  const ReplayResult predicted = run_replay(cluster, GpuCatalog::builtin(), profile, jobs, *policy, options);

  std::map<std::string, std::string> model_of_job;
  for (const JobSpec& j : jobs) model_of_job[j.id] = j.model;
  const Topology topology(cluster);
  const real_exec::MeasuredRun measured =
      real_exec::read_measurement_log((run / "measurements.jsonl").string());
  ValidatedRun v;
  v.dir = run;
  v.policy = policy->name();
  v.transport = std::move(transport);
  v.report = real_exec::compare_run(measured, predicted.jobs, topology, GpuCatalog::builtin(), profile,
                                    model_of_job, skip_first);
  return v;
}

void print_run(const ValidatedRun& v) {
  const real_exec::ValidationReport& r = v.report;
  std::printf("vnsim validate: %s (%s policy, %zu jobs compared)\n", v.dir.string().c_str(), v.policy.c_str(),
              r.jobs_compared);
  std::printf("prediction error (predicted vs measured, relative):\n");
  std::printf("all-reduce predicted from: %s\n", v.transport["links"].get<std::string>().c_str());
  print_stats("iteration time", r.iteration);
  print_segments(r.iteration_segments);
  print_stats("compute", r.compute);
  print_segments(r.compute_segments);
  print_stats("all-reduce", r.allreduce);
  print_segments(r.allreduce_segments);
  print_stats("JCT", r.jct);
  std::printf("  mean JCT        measured %.3f s, predicted %.3f s (%+.2f%%)\n", r.measured_mean_jct_s,
              r.predicted_mean_jct_s, 100 * r.mean_jct_error());
  std::printf("  makespan        measured %.3f s, predicted %.3f s (%+.2f%%)\n", r.measured_makespan_s,
              r.predicted_makespan_s, 100 * r.makespan_error());
}

std::string join(const std::vector<std::string>& names) {
  std::string out;
  for (const std::string& n : names) out += (out.empty() ? "" : " < ") + n;
  return out;
}

// A folder that holds no run_config.json but run folders: its runs, by name.
std::vector<fs::path> expand(const fs::path& dir) {
  if (fs::exists(dir / "run_config.json")) return {dir};
  if (!fs::is_directory(dir)) throw InputError(dir.string() + ": no such run folder");
  std::vector<fs::path> runs;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.is_directory() && fs::exists(e.path() / "run_config.json")) runs.push_back(e.path());
  if (runs.empty())
    throw InputError(dir.string() +
                     ": neither a vnexec run folder (no run_config.json) nor a folder of runs");
  std::sort(runs.begin(), runs.end());
  return runs;
}

nlohmann::ordered_json ranking_json(const real_exec::PolicyRanking& r) {
  nlohmann::ordered_json j;
  j["measured_order"] = r.measured_order;
  j["predicted_order"] = r.predicted_order;
  j["kendall_tau_b"] = r.tau.tau ? nlohmann::ordered_json(*r.tau.tau) : nlohmann::ordered_json(nullptr);
  j["concordant_pairs"] = r.tau.concordant;
  j["discordant_pairs"] = r.tau.discordant;
  j["tied_measured_only"] = r.tau.tied_x;
  j["tied_predicted_only"] = r.tau.tied_y;
  j["tied_both"] = r.tau.tied_both;
  j["agree"] = r.agree;
  return j;
}

// `csv_dir`: where validation_iterations.csv and validation_jobs.csv go (the
// run folder, or beside --out so that --out never rewrites the run folders).
void validate_and_write(const fs::path& run, int skip_first, bool use_probe, const fs::path& out_path,
                        const fs::path& csv_dir) {
  const ValidatedRun v = validate_run(run, skip_first, use_probe);
  nlohmann::ordered_json out = v.report.to_json();
  out["run"] = v.dir.string();
  out["policy"] = v.policy;
  out["skip_first"] = skip_first;
  out["transport"] = v.transport;
  fs::create_directories(csv_dir);
  std::ofstream(out_path) << out.dump(2) << "\n";
  real_exec::write_iteration_csv((csv_dir / "validation_iterations.csv").string(), v.report.iterations);
  real_exec::write_job_csv((csv_dir / "validation_jobs.csv").string(), v.report.jobs);
  print_run(v);
  std::printf("output: %s\n\n", out_path.string().c_str());
}

// Runs `work` in a forked child and returns its exit status (0 on success;
// errors are printed by the child as main() would print them).
int in_child(const std::function<void()>& work) {
  std::fflush(stdout);
  std::fflush(stderr);
  const pid_t pid = ::fork();
  if (pid < 0) throw std::runtime_error(std::string("fork: ") + std::strerror(errno));
  if (pid == 0) {
    int code = 0;
    try {
      work();
    } catch (const InputError& e) {
      std::fprintf(stderr, "vnsim: error: %s\n", e.what());
      code = 2;
    } catch (const std::exception& e) {
      std::fprintf(stderr, "vnsim: internal error: %s\n", e.what());
      code = 1;
    }
    std::fflush(stdout);
    std::fflush(stderr);
    ::_exit(code);
  }
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}

// Next to `vnsim report`'s builder; VNSIM_VALIDATION_SCRIPT overrides it.
std::string validation_script() {
  const char* env = std::getenv("VNSIM_VALIDATION_SCRIPT");
  if (env != nullptr && *env != '\0') return env;
  return (fs::path(VNSIM_REPORT_SCRIPT).parent_path() / "make_validation_report.py").string();
}

}  // namespace

const char* validate_usage() {
  return "vnsim validate --run RUN_DIR [--run RUN_DIR2 ...] [--out FILE] [--skip-first K] [--report DIR]\n"
         "                [--calibrated-links]\n"
         "                (a --run folder holding several run folders validates each of them;\n"
         "                 --calibrated-links predicts the all-reduce from the run's cluster spec\n"
         "                 instead of the transport probe of its own launch, transport.json)\n";
}

int run_validate_command(const std::vector<std::string>& argv_in) {
  // --run repeats; Args takes each flag once, so collect the runs first.
  std::vector<std::string> argv;
  std::vector<fs::path> runs;
  for (std::size_t i = 0; i < argv_in.size(); ++i) {
    if (argv_in[i] != "--run") {
      argv.push_back(argv_in[i]);
      continue;
    }
    if (i + 1 >= argv_in.size()) throw InputError("option --run needs a value");
    for (const fs::path& r : expand(argv_in[++i])) runs.push_back(r);
  }
  const Args args(argv, {"--out", "--skip-first", "--report"}, {"--calibrated-links"});
  if (runs.empty()) throw InputError("missing required option --run");
  const int skip_first = static_cast<int>(parse_integer("--skip-first", args.get_or("--skip-first", "1"), 0));
  const bool use_probe = !args.has("--calibrated-links");

  const std::optional<std::string> report = args.get("--report");
  const std::optional<std::string> out = args.get("--out");
  // With --out F, each run's files go to F.runs/<run folder name>/ instead
  // of into the run folder (which may be tracked, committed data).
  const auto run_files = [&](const fs::path& run) {
    return out ? fs::path(*out + ".runs") / fs::absolute(run).lexically_normal().filename() : run;
  };
  if (out) {
    std::set<fs::path> names;
    for (const fs::path& run : runs)
      if (!names.insert(run_files(run)).second)
        throw InputError("--out: two --run folders are named '" + run_files(run).filename().string() +
                         "'; their files would share " + run_files(run).string());
  }
  if (runs.size() == 1) {
    validate_and_write(runs[0], skip_first, use_probe, out ? fs::path(*out) : runs[0] / "validation.json",
                       run_files(runs[0]));
  } else {
    const std::string trace = read_text_file(runs[0] / "trace.jsonl");
    for (const fs::path& run : runs)
      if (read_text_file(run / "trace.jsonl") != trace)
        throw InputError(run.string() + ": executed a different trace than " + runs[0].string() +
                         "; a policy ranking compares runs of one trace");
    // One SimGrid engine per process: each run is replayed in a child.
    for (const fs::path& run : runs)
      if (const int code = in_child([&] {
            validate_and_write(run, skip_first, use_probe, run_files(run) / "validation.json",
                               run_files(run));
          }))
        return code;
  }

  // The statistics of every run, back from the files the validations wrote.
  nlohmann::ordered_json summary;
  summary["skip_first"] = skip_first;
  summary["runs"] = nlohmann::ordered_json::array();
  std::vector<nlohmann::ordered_json> stats;
  std::set<std::string> policies;
  for (std::size_t i = 0; i < runs.size(); ++i) {
    const fs::path file = runs.size() == 1 && out ? fs::path(*out) : run_files(runs[i]) / "validation.json";
    stats.push_back(nlohmann::ordered_json::parse(read_text_file(file)));
    policies.insert(stats.back()["policy"].get<std::string>());
    nlohmann::ordered_json r = stats.back();
    // Relative to the report folder, so a committed report stays self-contained.
    // The folder holding the run's validation CSVs, which the report reads.
    if (report) r["run"] = fs::relative(fs::absolute(run_files(runs[i])), fs::absolute(*report)).string();
    summary["runs"].push_back(r);
  }
  if (runs.size() >= 2) {
    // Label each run by its policy, or by its folder when a policy repeats.
    std::vector<real_exec::PolicyMeans> means;
    for (std::size_t i = 0; i < runs.size(); ++i)
      means.push_back({policies.size() == runs.size() ? stats[i]["policy"].get<std::string>()
                                                      : runs[i].filename().string(),
                       stats[i]["measured_mean_jct_s"].get<double>(),
                       stats[i]["predicted_mean_jct_s"].get<double>()});
    const real_exec::PolicyRanking ranking = real_exec::rank_policies(means);
    summary["ranking"] = ranking_json(ranking);
    std::printf("policy ranking by mean JCT over %zu runs (best first):\n", runs.size());
    std::printf("  measured  %s\n  predicted %s\n", join(ranking.measured_order).c_str(),
                join(ranking.predicted_order).c_str());
    if (ranking.tau.tau) {
      std::printf("  Kendall tau-b %+.3f: rankings %s\n", *ranking.tau.tau,
                  ranking.agree ? "agree" : "differ");
    } else {
      std::printf("  Kendall tau-b undefined (every pair tied in one ordering): rankings differ\n");
    }
    if (out) {
      std::ofstream(*out) << summary.dump(2) << "\n";
      std::printf("output: %s\n", out->c_str());
    }
  }
  if (report) {
    fs::create_directories(*report);
    std::ofstream(fs::path(*report) / "validation_summary.json") << summary.dump(2) << "\n";
    std::fflush(stdout);
    return run_notebook_builder(validation_script(), {*report});
  }
  return 0;
}

}  // namespace vnsim::cli
