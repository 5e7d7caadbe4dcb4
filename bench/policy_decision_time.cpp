// Decision time of every registered policy (docs/PERFORMANCE.md, "Policy
// decision time"): a 2,496-GPU cluster of 312 nodes x 8 GPUs in 13 racks of
// four GPU types, 500 running jobs holding about 950 GPUs and 1,000 queued
// jobs (Philly GPU-count mix), one decide() call on a fresh policy each
// repetition (the first call of a round-based policy solves its whole
// allocation). Prints a markdown table of wall-clock and CPU milliseconds.
//   build/bench/policy_decision_time [repetitions=5] [seed=1] [policy=all]
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <random>
#include <string>
#include <vector>

#include "cli/bench_cli.hpp"
#include "vnsim/core/feasibility.hpp"
#include "vnsim/core/units.hpp"
#include "vnsim/policies/policy.hpp"

namespace {

using namespace vnsim;

constexpr int kRacks = 13;
constexpr int kNodesPerRack = 24;
constexpr int kGpusPerNode = 8;
constexpr std::size_t kRunning = 500;
constexpr std::size_t kQueued = 1000;

// Racks cycle through four GPU types, so heterogeneity-aware policies see
// a real type choice.
ClusterSpec bench_cluster() {
  const std::vector<std::string> types = {"V100", "P100", "K80", "A100"};
  ClusterSpec spec;
  spec.name = "bench-2496";
  for (int r = 0; r < kRacks; ++r) {
    RackSpec rack;
    rack.name = "r" + std::to_string(r);
    rack.oversubscription = 2.0;
    rack.uplink_latency_s = units::us_to_s(1);
    for (int n = 0; n < kNodesPerRack; ++n) {
      NodeSpec node;
      node.name = rack.name + "n" + std::to_string(n);
      node.gpu_types.assign(kGpusPerNode, types[r % types.size()]);
      node.intra = IntraNodeLink{IntraLinkKind::NVLink, 150e9, units::us_to_s(1)};
      node.nic_bandwidth_Bps = units::gbps_to_Bps(100);
      node.nic_latency_s = units::us_to_s(1);
      rack.nodes.push_back(node);
    }
    spec.racks.push_back(rack);
  }
  return spec;
}

// Philly GPU-count mix as Gavel generates jobs (Gavel, Narayanan et al.,
// OSDI'20, scheduler/utils.py: 1/2/4/8 GPUs with 70/10/15/5%),
// a Pollux model chosen uniformly, its default local batch, 1e3-1e5 steps.
std::vector<JobSpec> bench_jobs(std::size_t count, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  const ModelCatalog& models = ModelCatalog::builtin();
  // The six Pollux models, as when the documented numbers were measured (the
  // catalog also holds the Gavel-only models since; a fixed list keeps the
  // benchmark's workload, and so its numbers, comparable).
  const std::vector<std::string> names = {"bert", "cifar10", "deepspeech2", "imagenet", "ncf", "yolov3"};
  std::discrete_distribution<int> size_pick({70, 10, 15, 5});
  std::uniform_int_distribution<std::size_t> model_pick(0, names.size() - 1);
  std::uniform_real_distribution<double> log_steps(3, 5);
  std::vector<JobSpec> jobs(count);
  for (std::size_t i = 0; i < count; ++i) {
    JobSpec& j = jobs[i];
    j.id = "j" + std::to_string(i);
    j.gpus = 1 << size_pick(rng);
    j.model = names[model_pick(rng)];
    j.global_batch = models.at(j.model).default_local_batch * j.gpus;
    j.iterations = static_cast<std::int64_t>(std::pow(10.0, log_steps(rng)));
    j.submit_s = static_cast<double>(i);
  }
  return jobs;
}

struct Workload {
  explicit Workload(std::uint64_t seed)
      : cluster(bench_cluster()),
        topology(cluster),
        view(cluster, topology),
        jobs(bench_jobs(kRunning + kQueued, seed)) {
    std::vector<int> free_on_node(cluster.node_count(), kGpusPerNode);
    std::mt19937_64 rng(seed + 1);
    std::uniform_real_distribution<double> remaining(600, 36000);
    for (std::size_t i = 0; i < jobs.size(); ++i) {
      const JobSpec& j = jobs[i];
      const GpuTypeMask allowed =
          allowed_gpu_types(j, cluster, GpuCatalog::builtin(), ModelCatalog::builtin());
      if (i < kRunning) {
        // First node of an allowed type with room: sizes divide 8, so whole
        // jobs fit inside one node.
        for (NodeId n = 0; n < cluster.node_count(); ++n) {
          if (free_on_node[n] < j.gpus || (cluster.node_type_mask(n) & allowed) == 0) continue;
          std::vector<GpuId> gpus = view.free_gpus_on_node(n);
          gpus.resize(j.gpus);
          view.allocate(gpus, i);
          free_on_node[n] -= j.gpus;
          const double start = 500.0 + static_cast<double>(i);
          running.push_back(RunningJob{i, &j, spread_virtual_nodes(gpus, j.effective_virtual_nodes()), start,
                                       j.gpus * 600.0, remaining(rng)});
          break;
        }
      } else {
        queued.push_back(QueuedJob{i, &j, 0, remaining(rng), allowed});
      }
    }
  }
  SchedulerInput input() const {
    SchedulerInput in;
    in.now_s = 3600;
    in.view = &view;
    in.running = running;
    in.queued = queued;
    return in;
  }
  Cluster cluster;
  Topology topology;
  ClusterView view;
  std::vector<JobSpec> jobs;
  std::vector<RunningJob> running;
  std::vector<QueuedJob> queued;
};

const char* const kUsage =
    "usage: policy_decision_time [repetitions=5] [seed=1] [policy=all]\n"
    "Times one decide() of every registered policy (or only POLICY) on a 2,496-GPU cluster with 500 running\n"
    "and 1,000 queued jobs; prints a markdown table of wall-clock and CPU milliseconds.";

int run(std::vector<std::string>& args) {
  bench::expect_at_most(args, 3);
  const std::size_t reps_arg = args.size() > 0 ? bench::parse_count(args[0], "repetitions") : 5;
  if (reps_arg == 0 || reps_arg > 100000) throw bench::UsageError("repetitions must be in [1, 100000]");
  const int reps = static_cast<int>(reps_arg);
  const std::uint64_t seed = args.size() > 1 ? bench::parse_seed(args[1], "seed") : 1;
  const std::string only = args.size() > 2 ? args[2] : "";
  if (!only.empty()) {
    const std::vector<std::string> names = policy_names();
    if (std::find(names.begin(), names.end(), only) == names.end())
      throw bench::UsageError("unknown policy '" + only + "'; `vnsim policies` lists them");
  }
  const Workload w(seed);
  int held = 0;
  for (const RunningJob& r : w.running) held += static_cast<int>(r.placement.gpus.size());
  std::printf(
      "cluster: %d GPUs (%d nodes); running jobs: %zu on %d GPUs; queued jobs: %zu; repetitions: %d\n\n",
      w.cluster.gpu_count(), w.cluster.node_count(), w.running.size(), held, w.queued.size(), reps);
  // CPU time (std::clock, the process's) is printed beside wall time: on a
  // shared machine it is the steadier measure of a decision's cost.
  std::printf(
      "| policy | median ms | min ms | max ms | median CPU ms | decisions "
      "|\n|---|---:|---:|---:|---:|---:|\n");
  // Every registered policy with its defaults, plus Gavel's other objectives
  // and its space sharing.
  struct Variant {
    std::string name;
    PolicyParams params;
  };
  std::vector<Variant> variants;
  for (const std::string& name : policy_names()) {
    variants.push_back({name, {}});
    if (name == "gavel") {
      for (const char* objective : {"finish_time_fairness", "makespan"})
        variants.push_back({name, {{"objective", objective}}});
      variants.push_back({name, {{"space_sharing", "on"}}});
      for (const char* objective : {"finish_time_fairness", "makespan"})
        variants.push_back({name, {{"objective", objective}, {"space_sharing", "on"}}});
    }
  }
  for (const auto& [name, params] : variants) {
    if (!only.empty() && name != only) continue;
    std::string label = name;
    for (const auto& [key, value] : params) label += " " + key + "=" + value;
    std::vector<double> ms;
    std::vector<double> cpu_ms;
    std::size_t decisions = 0;
    for (int r = 0; r < reps; ++r) {
      auto policy = make_policy(name, params);
      const SchedulerInput in = w.input();
      const auto t0 = std::chrono::steady_clock::now();
      const std::clock_t c0 = std::clock();
      const std::vector<Decision> out = policy->decide(in);
      const std::clock_t c1 = std::clock();
      const auto t1 = std::chrono::steady_clock::now();
      ms.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
      cpu_ms.push_back(1000.0 * static_cast<double>(c1 - c0) / CLOCKS_PER_SEC);
      decisions = out.size();
    }
    std::sort(ms.begin(), ms.end());
    std::sort(cpu_ms.begin(), cpu_ms.end());
    std::printf("| %s | %.1f | %.1f | %.1f | %.1f | %zu |\n", label.c_str(), ms[ms.size() / 2], ms.front(),
                ms.back(), cpu_ms[cpu_ms.size() / 2], decisions);
    std::fflush(stdout);
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  return bench::run_bench_cli(argc, argv, kUsage, run);
}
