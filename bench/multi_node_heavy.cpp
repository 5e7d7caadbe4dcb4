// "No trap by default" (issue 21; docs/PERFORMANCE.md, "Ring engines"): a
// seeded trace where a quarter of the jobs span nodes, with iteration counts
// log-uniform up to 1e8, replayed with default engine options under one
// policy. Contended multi-node rings simulated iteration by iteration made
// such traces run for hours; the default fluid rings must finish them in
// seconds. Prints wall time, peak RSS and what completed.
//
//   build/bench/multi_node_heavy POLICY [jobs=1000] [seed=1] [cluster=pollux-16x4] [engine=default|actors]
//   build/bench/multi_node_heavy --jsonl FILE [jobs] [seed] [cluster]   (writes the trace for `vnsim replay`)
//
// `--load L` (anywhere on the line) spaces the arrivals so that the offered
// load, alone GPU-seconds of work / (cluster GPUs x arrival span), is L: the
// same jobs as without it, arriving at another rate (heavy/heavy_trace.hpp).
// Without it, one arrival every 30 s per 64 GPUs, an offered load in the
// thousands (docs/PERFORMANCE_HISTORY.md, "The multi-node-heavy trace at a
// load the cluster keeps up with"). Both modes print the offered load.
//
// SimGrid allows one engine per process: one policy per run.
#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include "cli/bench_cli.hpp"
#include "heavy/heavy_trace.hpp"
#include "vnsim/core/cluster.hpp"
#include "vnsim/core/cluster_spec.hpp"
#include "vnsim/core/gpu_catalog.hpp"
#include "vnsim/core/model_catalog.hpp"
#include "vnsim/policies/policy.hpp"
#include "vnsim/sim/replay.hpp"

namespace {

using namespace vnsim;

const char* const kUsage =
    "usage: multi_node_heavy POLICY [jobs=1000] [seed=1] [cluster=pollux-16x4] [engine=default|actors] "
    "[--load L]\n"
    "       multi_node_heavy --jsonl FILE [jobs=1000] [seed=1] [cluster=pollux-16x4] [--load L]\n"
    "Replays a seeded trace where a quarter of the jobs span nodes (iterations up to 1e8) under POLICY, or\n"
    "writes it to FILE for `vnsim replay`. L > 0: offered load, alone GPU-seconds / (cluster GPUs x\n"
    "arrival span); without it, one arrival every 30 s per 64 GPUs.";

void write_jsonl(const std::string& path, const std::vector<JobSpec>& jobs, bool millisecond_submits) {
  std::ofstream f(path);
  bench::write_heavy_jsonl(f, jobs, millisecond_submits);
  if (!f) throw bench::UsageError(path + ": cannot write");
}

double peak_rss_mb() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_maxrss) / 1024.0;
}

// Takes `--load L` out of the arguments; 0 when absent.
double take_load_option(std::vector<std::string>& args) {
  for (std::size_t i = 0; i < args.size(); ++i) {
    if (args[i] != "--load") continue;
    if (i + 1 >= args.size()) throw bench::UsageError("--load needs a value");
    const double load = bench::parse_number(args[i + 1], "--load");
    if (!(load > 0)) throw bench::UsageError("--load must be > 0, got " + args[i + 1]);
    args.erase(args.begin() + static_cast<std::ptrdiff_t>(i),
               args.begin() + static_cast<std::ptrdiff_t>(i) + 2);
    return load;
  }
  return 0;
}

int run(std::vector<std::string>& args) {
  const double load = take_load_option(args);
  const bool to_jsonl = !args.empty() && args[0] == "--jsonl";
  if (to_jsonl) args.erase(args.begin());
  if (args.empty()) throw bench::UsageError(to_jsonl ? "--jsonl needs a FILE" : "missing POLICY");
  const std::string target = args[0];
  if (target.rfind("--", 0) == 0) throw bench::UsageError("unknown option " + target);
  bench::expect_at_most({args.begin() + 1, args.end()}, to_jsonl ? 3 : 4);
  const auto arg = [&](std::size_t i, const char* fallback) {
    return args.size() > i ? args[i] : std::string(fallback);
  };
  const std::size_t count = bench::parse_count(arg(1, "1000"), "jobs");
  const std::uint64_t seed = bench::parse_seed(arg(2, "1"), "seed");
  const Cluster cluster(load_cluster_spec(arg(3, "pollux-16x4")));
  const std::string engine = arg(4, "default");
  if (count == 0) throw bench::UsageError("jobs must be > 0");
  if (engine != "default" && engine != "actors")
    throw bench::UsageError("engine must be default or actors, got " + engine);
  const int gpus_per_node = cluster.max_gpus_per_node();
  const std::vector<JobSpec> jobs =
      load > 0
          ? bench::heavy_trace_at_load(count, seed, cluster, GpuCatalog::builtin(), ModelCatalog::builtin(),
                                       load)
          : bench::heavy_trace(count, seed, gpus_per_node, bench::default_mean_gap_s(cluster.gpu_count()));
  const double offered =
      offered_load(jobs, alone_gpu_seconds(jobs, cluster, GpuCatalog::builtin(), ModelCatalog::builtin()),
                   cluster.gpu_count());
  if (to_jsonl) {
    write_jsonl(target, jobs, load > 0);
    std::fprintf(stderr, "%s: %zu jobs, arrivals over %.0f s, offered_load=%.4g\n", target.c_str(),
                 jobs.size(), jobs.back().submit_s, offered);
    return 0;
  }
  std::size_t multi_node = 0;
  for (const JobSpec& j : jobs) multi_node += j.gpus > gpus_per_node;

  const std::unique_ptr<Policy> policy = make_policy(target, {}, seed);
  ReplayOptions options;
  options.fluid_rings = engine == "default";
  // As `vnsim replay` streams allocations.csv to disk, the log is not kept
  // in memory: counted here, so that peak RSS is the CLI's.
  std::size_t allocation_events = 0;
  options.allocation_sink = [&allocation_events](const AllocationEvent&) { ++allocation_events; };
  const auto t0 = std::chrono::steady_clock::now();
  const ReplayResult r =
      run_replay(cluster, GpuCatalog::builtin(), ModelCatalog::builtin(), jobs, *policy, options);
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::size_t completed = 0;
  for (const JobRecord& rec : r.jobs) completed += rec.state == FinalState::Completed;
  std::printf(
      "policy=%s engine=%s cluster=%s gpus=%d jobs=%zu multi_node=%zu completed=%zu rejected=%zu "
      "allocation_events=%zu simulated_s=%.0f scheduler_s=%.2f wall_s=%.2f peak_rss_mb=%.0f "
      "offered_load=%.4g\n",
      policy->name().c_str(), engine.c_str(), cluster.spec().name.c_str(), cluster.gpu_count(), jobs.size(),
      multi_node, completed, jobs.size() - completed, allocation_events, r.simulated_end_s,
      r.scheduler_wall_s, wall, peak_rss_mb(), offered);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  return bench::run_bench_cli(argc, argv, kUsage, run);
}
