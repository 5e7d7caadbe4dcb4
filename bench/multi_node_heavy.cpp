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
// SimGrid allows one engine per process: one policy per run.
#include <sys/resource.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "vnsim/core/cluster.hpp"
#include "vnsim/core/cluster_spec.hpp"
#include "vnsim/core/gpu_catalog.hpp"
#include "vnsim/core/model_catalog.hpp"
#include "vnsim/policies/policy.hpp"
#include "vnsim/sim/replay.hpp"

namespace {

using namespace vnsim;

// 25% of the jobs take 2-4 whole nodes, the others 1 GPU to a whole node;
// iterations log-uniform in [1e2, 1e8]; a Pollux model chosen uniformly at
// its default local batch; Poisson arrivals every `mean_gap_s`.
std::vector<JobSpec> heavy_trace(std::size_t count, std::uint64_t seed, int gpus_per_node,
                                 double mean_gap_s) {
  std::mt19937_64 rng(seed);
  const std::vector<std::string> names = {"bert", "cifar10", "deepspeech2", "imagenet", "ncf", "yolov3"};
  std::uniform_int_distribution<std::size_t> model_pick(0, names.size() - 1);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  std::uniform_int_distribution<int> nodes_pick(2, 4);
  std::uniform_int_distribution<int> single_pick(0, 3);
  std::exponential_distribution<double> gap(1.0 / mean_gap_s);
  std::vector<JobSpec> jobs;
  double t = 0;
  for (std::size_t i = 0; i < count; ++i) {
    JobSpec j;
    j.id = "h" + std::to_string(i);
    j.submit_s = std::round(t * 1000) / 1000;
    if (unit(rng) < 0.25) {
      j.gpus = gpus_per_node * nodes_pick(rng);
    } else {
      j.gpus = std::min(gpus_per_node, 1 << single_pick(rng));
    }
    j.virtual_nodes = j.gpus;
    j.iterations = static_cast<long long>(std::llround(std::pow(10.0, 2.0 + 6.0 * unit(rng))));
    const ModelParams& m = ModelCatalog::builtin().at(names[model_pick(rng)]);
    j.model = m.name;
    j.global_batch = j.gpus * m.default_local_batch;
    jobs.push_back(j);
    t += gap(rng);
  }
  return jobs;
}

void write_jsonl(const std::string& path, const std::vector<JobSpec>& jobs) {
  std::ofstream f(path);
  for (const JobSpec& j : jobs)
    f << "{\"id\": \"" << j.id << "\", \"submit_s\": " << j.submit_s << ", \"gpus\": " << j.gpus
      << ", \"model\": \"" << j.model << "\", \"virtual_nodes\": " << j.virtual_nodes
      << ", \"iterations\": " << j.iterations << ", \"global_batch\": " << j.global_batch << "}\n";
  if (!f) {
    std::fprintf(stderr, "%s: cannot write\n", path.c_str());
    std::exit(2);
  }
}

double peak_rss_mb() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_maxrss) / 1024.0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr,
                 "usage: %s POLICY [jobs=1000] [seed=1] [cluster=pollux-16x4] [engine=default|actors]\n"
                 "       %s --jsonl FILE [jobs=1000] [seed=1] [cluster=pollux-16x4]\n",
                 argv[0], argv[0]);
    return 2;
  }
  const bool to_jsonl = std::string(argv[1]) == "--jsonl";
  const int shift = to_jsonl ? 1 : 0;
  const auto arg = [&](int i, const char* fallback) {
    return argc > i + shift ? std::string(argv[i + shift]) : std::string(fallback);
  };
  const std::size_t count = std::strtoul(arg(2, "1000").c_str(), nullptr, 10);
  const std::uint64_t seed = std::strtoull(arg(3, "1").c_str(), nullptr, 10);
  const Cluster cluster(load_cluster_spec(arg(4, "pollux-16x4")));
  const std::string engine = arg(5, "default");
  if (count == 0 || (engine != "default" && engine != "actors")) {
    std::fprintf(stderr, "jobs must be > 0 and engine default or actors\n");
    return 2;
  }
  const int gpus_per_node = cluster.max_gpus_per_node();
  // One arrival every 30 s per 64 GPUs: the jobs of 1e7-1e8 iterations alone
  // ask for more than the cluster has, so jobs queue on every cluster size.
  const double mean_gap_s = 30.0 * 64.0 / static_cast<double>(cluster.gpu_count());
  const std::vector<JobSpec> jobs = heavy_trace(count, seed, gpus_per_node, mean_gap_s);
  if (to_jsonl) {
    write_jsonl(argv[2], jobs);
    return 0;
  }
  std::size_t multi_node = 0;
  for (const JobSpec& j : jobs) multi_node += j.gpus > gpus_per_node;

  const std::unique_ptr<Policy> policy = make_policy(arg(1, ""), {}, seed);
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
      "allocation_events=%zu simulated_s=%.0f scheduler_s=%.2f wall_s=%.2f peak_rss_mb=%.0f\n",
      policy->name().c_str(), engine.c_str(), cluster.spec().name.c_str(), cluster.gpu_count(), jobs.size(),
      multi_node, completed, jobs.size() - completed, allocation_events, r.simulated_end_s,
      r.scheduler_wall_s, wall, peak_rss_mb());
  return 0;
}
