// `vnsim replay`: trace in, jobs.csv + summary.json + run.json out.
#include "replay_command.hpp"

#include <sys/resource.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <mutex>
#include <optional>
#include <string>
#include <utility>

#include "allocations_csv.hpp"
#include "args.hpp"
#include "interrupt_watcher.hpp"
#include "overload_note.hpp"
#include "replay_progress.hpp"
#include "staged_output.hpp"
#include "trace_options.hpp"
#include "vnsim/core/cluster.hpp"
#include "vnsim/core/error.hpp"
#include "vnsim/core/goodput.hpp"
#include "vnsim/core/gpu_catalog.hpp"
#include "vnsim/core/model_catalog.hpp"
#include "vnsim/core/text_file.hpp"
#include "vnsim/policies/placement.hpp"
#include "vnsim/policies/policy.hpp"
#include "vnsim/policies/vc_quota_policy.hpp"
#include "vnsim/sim/node_events.hpp"
#include "vnsim/sim/replay.hpp"
#include "vnsim/sim/version.hpp"
#include "vnsim/sweep/display_command.hpp"
#include "vnsim/traces/generated_trace.hpp"
#include "vnsim/traces/readers.hpp"
#include "vnsim/traces/work_assignment.hpp"

namespace vnsim::cli {
namespace {

double peak_rss_mb() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_maxrss) / 1024.0;  // ru_maxrss is KiB on Linux
}

struct LoadedTrace {
  std::vector<JobSpec> jobs;
  std::vector<TraceIssue> skipped;
  std::string description;
};

LoadedTrace load_jobs(const std::string& trace, const std::string& format, BadRowPolicy bad_rows,
                      const Cluster& cluster, std::uint64_t seed, const JobPreparation& prep) {
  LoadedTrace out;
  if (is_generated_trace(trace)) {
    GeneratedTrace generated = generate_trace(trace, seed);
    out.jobs = std::move(generated.jobs);
    out.description = std::move(generated.description);
    prepare_jobs(out.jobs, out.skipped, trace, prep, &cluster);
    return out;
  }
  TraceReadResult r = read_trace(trace, format, bad_rows);
  out.jobs = std::move(r.jobs);
  out.skipped = std::move(r.skipped);
  prepare_jobs(out.jobs, out.skipped, trace, prep, &cluster);
  // A trace of the shared data is named "${VNSIM_SHARED}/...": committed
  // outputs must not name the folders of the machine that ran them.
  const char* shared = std::getenv("VNSIM_SHARED");
  out.description = sweep::shared_path_label(trace, shared != nullptr ? shared : "") + " (" + r.format + ")";
  return out;
}

// The replay's staging folder, for the interrupt watcher thread; the mutex
// keeps it from being used while the main thread destroys it.
std::mutex g_staged_mutex;
StagedOutput* g_staged = nullptr;

struct StagedRegistration {
  explicit StagedRegistration(StagedOutput& s) {
    std::lock_guard<std::mutex> lock(g_staged_mutex);
    g_staged = &s;
  }
  ~StagedRegistration() {
    std::lock_guard<std::mutex> lock(g_staged_mutex);
    g_staged = nullptr;
  }
  StagedRegistration(const StagedRegistration&) = delete;
  StagedRegistration& operator=(const StagedRegistration&) = delete;
};

// SIGINT/SIGTERM: drop the staging folder, say so in one line, exit 130/143.
// Runs on the watcher thread; _exit skips SimGrid's exit-time hooks, which
// would otherwise print "Process called exit when leaving".
[[noreturn]] void end_interrupted_replay(int signo) {
  std::lock_guard<std::mutex> lock(g_staged_mutex);
  std::string where = "no outputs were written";
  if (g_staged != nullptr)
    where = g_staged->discard() ? "nothing was written to " + g_staged->final_dir().string()
                                : "outputs were complete in " + g_staged->final_dir().string();
  std::fflush(stdout);
  std::fprintf(stderr, "%svnsim: replay interrupted by %s; %s\n", isatty(STDERR_FILENO) ? "\n" : "",
               signal_name(signo), where.c_str());
  std::fflush(stderr);
  ::_exit(interrupt_exit_code(signo));
}

void write_skipped_rows(const std::filesystem::path& path, const std::vector<TraceIssue>& skipped) {
  std::ofstream f(path);
  f << skipped_rows_csv(skipped);
  if (!f) throw InputError(path.string() + ": cannot write");
}

}  // namespace

const char* replay_usage() {
  // The --placement and --format names come from their registries, so a new
  // placement or trace format is listed without an edit here.
  static const std::string usage = [] {
    std::string placements, formats;
    for (const std::string& n : placement_names()) placements += (placements.empty() ? "" : "|") + n;
    for (const std::string& n : trace_format_names()) formats += (formats.empty() ? "" : "|") + n;
    return "vnsim replay --cluster <preset|file> --trace <file|synthetic[:N]|synthetic-<kind>[:N]> --out "
           "DIR\n"
           "             [--policy NAME (list: vnsim policies)] [--policy-param key=value]...\n"
           "             [--placement " +
           placements +
           "]\n"
           "             [--format " +
           formats +
           "]\n"
           "             [--seed N] [--fluid-rings (default) | --actor-rings | --quiet-rings]\n"
           "             [--macro-iterations M]  (docs/PERFORMANCE.md, \"Ring engines\")\n"
           "             [--contended-macro-s S] [--model-calibration NAME (e.g. sia-artifact)]\n"
           "             [--profile MODELS.json] [--noise NOISE.json]  (e.g. from vnexec calibrate)\n"
           "             [--vc-quotas FILE|trace [--vc-borrow on|off]]  (docs/POLICIES.md)\n"
           "             [--bad-rows skip|fail] [--allow-empty] [--quiet] [--hetero-split]\n"
           "             [--checkpoint-interval S] [--node-events FILE] [--node-down S]\n"
           "             [--revocation-rate R] [--failure-rate R]  (docs/ELASTICITY.md, docs/SPOT.md)\n"
           "             [filters] [construction]  (as for 'vnsim trace convert'; kinds: philly helios pai "
           "openb)\n";
  }();
  return usage.c_str();
}

namespace {

// --policy-param may be repeated, which Args (one value per flag) does not
// support: take those out of argv first.
PolicyParams take_policy_params(const std::vector<std::string>& argv, std::vector<std::string>& rest) {
  PolicyParams params;
  for (std::size_t i = 0; i < argv.size(); ++i) {
    if (argv[i] != "--policy-param") {
      rest.push_back(argv[i]);
      continue;
    }
    if (i + 1 >= argv.size()) throw InputError("option --policy-param needs a value key=value");
    const std::string& kv = argv[++i];
    const std::size_t eq = kv.find('=');
    if (eq == std::string::npos || eq == 0)
      throw InputError("--policy-param: expected key=value, got '" + kv + "'");
    if (!params.emplace(kv.substr(0, eq), kv.substr(eq + 1)).second)
      throw InputError("--policy-param: '" + kv.substr(0, eq) + "' given twice");
  }
  return params;
}

// The quotas the run used (derived ones included), in the quota file format.
void write_vc_quotas(const std::filesystem::path& path, const VcQuotas& quotas) {
  std::ofstream f(path);
  f << vc_quotas_csv(quotas);
  if (!f) throw InputError(path.string() + ": cannot write");
}

// --fluid-rings (the default), --actor-rings or --quiet-rings: the actor
// engines are opt-in, and say up front what they may cost.
void set_ring_engine(const Args& args, ReplayOptions& options) {
  const bool actors = args.has("--actor-rings");
  const bool quiet_rings = args.has("--quiet-rings");
  if (args.has("--fluid-rings") && (actors || quiet_rings))
    throw InputError(
        "--fluid-rings cannot be combined with --actor-rings or --quiet-rings: pick one ring engine");
  if (!actors && !quiet_rings) return;  // fluid rings
  options.fluid_rings = false;
  options.quiet_rings = quiet_rings;
  std::cerr
      << "note: " << (quiet_rings ? "--quiet-rings" : "--actor-rings")
      << " simulates contended multi-node rings with one SimGrid actor per GPU (iteration by iteration unless"
         " --contended-macro-s);"
         " on traces with many long multi-node jobs that can take hours where the default fluid rings"
         " take seconds (docs/PERFORMANCE.md, \"Ring engines\")\n";
}

}  // namespace

int run_replay_command(const std::vector<std::string>& all_argv) {
  const auto wall_start = std::chrono::steady_clock::now();
  watch_interrupts(end_interrupted_replay, /*with_sweep_parent=*/true);
  std::vector<std::string> argv;
  PolicyParams policy_params = take_policy_params(all_argv, argv);
  std::set<std::string> flags = {"--cluster",
                                 "--trace",
                                 "--out",
                                 "--policy",
                                 "--placement",
                                 "--format",
                                 "--seed",
                                 "--macro-iterations",
                                 "--bad-rows",
                                 "--checkpoint-interval",
                                 "--node-events",
                                 "--revocation-rate",
                                 "--failure-rate",
                                 "--node-down",
                                 "--contended-macro-s",
                                 "--vc-quotas",
                                 "--vc-borrow",
                                 "--model-calibration",
                                 "--profile",
                                 "--noise"};
  flags.insert(trace_option_flags().begin(), trace_option_flags().end());
  Args args(
      argv, flags,
      {"--quiet", "--hetero-split", "--quiet-rings", "--fluid-rings", "--actor-rings", "--allow-empty"});
  // Before anything reads the model catalog: the engine, the policies and the
  // construction rules all price steps with the calibrated one.
  if (auto name = args.get("--model-calibration")) ModelCatalog::select_builtin_calibration(*name);
  if (auto placement = args.get("--placement")) {
    if (!policy_params.emplace("placement", *placement).second)
      throw InputError("--placement and --policy-param placement=... both given");
  }
  const std::string cluster_name = args.require("--cluster");
  const std::string trace = args.require("--trace");
  const std::filesystem::path out_dir = args.require("--out");
  const std::string policy_name = args.get_or("--policy", "fifo");
  const auto seed = static_cast<std::uint64_t>(parse_integer("--seed", args.get_or("--seed", "1"), 0));
  const std::string bad_rows_text = args.get_or("--bad-rows", "skip");
  if (bad_rows_text != "skip" && bad_rows_text != "fail")
    throw InputError("--bad-rows: expected skip or fail, got '" + bad_rows_text + "'");
  const BadRowPolicy bad_rows = bad_rows_text == "skip" ? BadRowPolicy::Skip : BadRowPolicy::Fail;
  const bool quiet = args.has("--quiet");

  ReplayOptions options;
  if (auto m = args.get("--macro-iterations"))
    options.macro_iterations = static_cast<int>(parse_integer("--macro-iterations", *m, 1));
  options.heterogeneous_split = args.has("--hetero-split");
  set_ring_engine(args, options);
  options.seed = seed;
  const auto non_negative = [&](const char* flag, double& out) {
    if (auto v = args.get(flag)) {
      out = parse_number(flag, *v);
      if (out < 0) throw InputError(std::string(flag) + ": must be >= 0, got '" + *v + "'");
    }
  };
  non_negative("--checkpoint-interval", options.checkpoint_interval_s);
  non_negative("--contended-macro-s", options.contended_macro_s);
  non_negative("--revocation-rate", options.revocation_rate_per_node_hour);
  non_negative("--failure-rate", options.failure_rate_per_node_hour);
  if (auto v = args.get("--node-down")) {
    options.node_down_s = parse_number("--node-down", *v);
    if (!(options.node_down_s > 0)) throw InputError("--node-down: must be > 0, got '" + *v + "'");
  }

  StagedOutput staged(out_dir);  // a bad --out fails here, before any work
  const StagedRegistration registration(staged);
  Cluster cluster(load_cluster_spec(cluster_name));
  if (auto file = args.get("--node-events")) options.node_events = read_node_events(*file, cluster);
  std::unique_ptr<Policy> policy = make_policy(policy_name, policy_params, seed);
  // A measured model profile and gradient noise (vnexec calibrate's
  // models.json and noise.json): the simulator's prediction of a testbed
  // run, as `vnsim validate` makes it, without a run.
  const std::optional<ModelCatalog> profile =
      args.get("--profile") ? std::optional<ModelCatalog>(ModelCatalog::parse(
                                  read_text_file(*args.get("--profile")), *args.get("--profile")))
                            : std::nullopt;
  std::optional<NoiseScaleCatalog> noise;
  if (auto file = args.get("--noise")) {
    if (args.get("--vc-quotas")) throw InputError("--noise cannot be combined with --vc-quotas");
    noise = NoiseScaleCatalog::parse(read_text_file(*file), *file);
    policy->use_noise_profiles(*noise);
    options.noise_profiles = &*noise;
  }
  const JobPreparation preparation = job_preparation_from(args, seed);
  LoadedTrace loaded = load_jobs(trace, args.get_or("--format", ""), bad_rows, cluster, seed, preparation);
  const std::string borrow = args.get_or("--vc-borrow", "off");
  if (borrow != "on" && borrow != "off")
    throw InputError("--vc-borrow: expected on or off, got '" + borrow + "'");
  std::optional<VcQuotas> quotas;
  if (auto source = args.get("--vc-quotas")) {
    quotas = vc_quotas_from_source(*source, loaded.jobs, cluster.gpu_count());
    policy = make_vc_quota_policy(
        policy_name,
        [&policy_name, &policy_params, seed] { return make_policy(policy_name, policy_params, seed); },
        *quotas, borrow == "on");
  } else if (args.get("--vc-borrow")) {
    throw InputError("--vc-borrow needs --vc-quotas FILE|trace");
  }
  // Corrupt rows first: they are the ones to look at among routine filtering.
  std::vector<TraceIssue> shown;
  std::size_t corrupt = 0;
  for (const auto& s : loaded.skipped)
    if (s.kind == IssueKind::Corrupt && corrupt++ < 20) shown.push_back(s);
  for (const auto& s : loaded.skipped)
    if (s.kind == IssueKind::Filtered && shown.size() < 20) shown.push_back(s);
  for (const auto& s : shown) std::cerr << "skipped (" << to_string(s.kind) << ") " << s.message() << "\n";
  if (!loaded.skipped.empty())
    std::cerr << "skipped " << loaded.skipped.size() << " rows: " << corrupt << " corrupt, "
              << loaded.skipped.size() - corrupt << " filtered (all listed in skipped_rows.csv)\n";
  // Nothing to replay is almost always a wrong --format, a header slip or a
  // filter that removes everything: a user error unless asked for.
  if (loaded.jobs.empty() && !args.has("--allow-empty"))
    throw InputError(trace + ": no job to replay (" + std::to_string(loaded.skipped.size()) +
                     " rows skipped); check --format and the filters, or pass --allow-empty");
  const ModelCatalog& models = profile ? *profile : ModelCatalog::builtin();
  std::cerr << overload_note(loaded.jobs, cluster, models, preparation.filter.arrival_scale);
  // summary.json first: it is what makes a folder look like a finished run
  // (a sweep's resume looks for it), so a kill between two of these renames
  // never leaves a previous run looking complete.
  staged.withdraw_previous(
      {"summary.json", "jobs.csv", "allocations.csv", "skipped_rows.csv", "run.json", "vc_quotas.csv"});
  ReplayProgressReport progress = ReplayProgressReport::for_stderr(quiet);
  options.progress = [&progress](const ReplayProgress& p) { progress.update(p); };
  // allocations.csv grows in the staging folder while the replay runs (a run
  // with millions of preemptions would otherwise hold them all in memory);
  // like every staged file it appears in --out only when the run completes.
  std::vector<std::string> job_ids;
  job_ids.reserve(loaded.jobs.size());
  for (const JobSpec& j : loaded.jobs) job_ids.push_back(j.id);
  AllocationCsvStream allocations((staged.dir() / "allocations.csv").string(), std::move(job_ids));
  options.allocation_sink = [&allocations](const AllocationEvent& e) { allocations.add(e); };
  ReplayResult result = run_replay(cluster, GpuCatalog::builtin(), models, loaded.jobs, *policy, options);
  progress.finish();

  RunInfo info;
  info.policy = policy->name();
  info.cluster = cluster.spec().name;
  info.trace = loaded.description;
  info.seed = seed;
  info.model_calibration = args.get_or("--model-calibration", "");
  info.total_gpus = cluster.gpu_count();
  info.scheduler_wall_s = result.scheduler_wall_s;
  info.scheduler_calls = result.scheduler_calls;
  info.scheduler_active_jobs_mean = result.scheduler_active_jobs_mean;
  info.scheduler_cpu_s = result.scheduler_cpu_s;
  info.scheduler_cpu_measured_calls = result.scheduler_cpu_measured_calls;
  info.scheduler_unchanged_calls = result.scheduler_unchanged_calls;
  info.scheduler_unchanged_cpu_s = result.scheduler_unchanged_cpu_s;
  info.scheduler_idle_calls = result.scheduler_idle_calls;
  info.scheduler_idle_cpu_s = result.scheduler_idle_cpu_s;
  info.simgrid_version = simgrid_version();
  info.vnsim_version = VNSIM_VERSION;
  info.usage = result.usage;
  const std::filesystem::path& dir = staged.dir();
  write_jobs_csv((dir / "jobs.csv").string(), result.jobs);
  allocations.finish();
  write_summary_json((dir / "summary.json").string(), result.jobs, info);
  write_skipped_rows(dir / "skipped_rows.csv", loaded.skipped);
  if (quotas) write_vc_quotas(dir / "vc_quotas.csv", *quotas);
  info.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
  info.peak_rss_mb = peak_rss_mb();
  write_run_json((dir / "run.json").string(), info);
  staged.commit();

  std::size_t completed = 0;
  for (const auto& j : result.jobs) completed += j.state == FinalState::Completed;
  if (!quiet) {
    std::printf("vnsim %s replay: %zu jobs (%zu completed, %zu rejected), %zu rows skipped\n", VNSIM_VERSION,
                result.jobs.size(), completed, result.jobs.size() - completed, loaded.skipped.size());
    std::printf("simulated %.0f s in %.2f s wall (scheduler %.2f s), peak RSS %.0f MB\n",
                result.simulated_end_s, info.wall_s, info.scheduler_wall_s, info.peak_rss_mb);
    std::printf("outputs: %s/{jobs.csv,allocations.csv,summary.json,run.json,skipped_rows.csv}\n",
                out_dir.string().c_str());
  }
  return 0;
}

}  // namespace vnsim::cli
