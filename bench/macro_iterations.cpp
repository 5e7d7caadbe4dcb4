// Fidelity vs cost of macro-iterations (docs/PERFORMANCE.md,
// "Macro-iterations: fidelity vs cost"). Replays a fixed, seeded workload of
// multi-node jobs under heavy uplink contention with M macro-iterations per
// job and prints mean per-iteration time, mean JCT, makespan and wall time.
// M = 0 simulates every iteration (k = 1): the reference. SimGrid allows one
// engine per process, so run one M per process:
//   for m in 0 1 3 10 30 100; do build/bench/macro_iterations $m; done
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "cli/bench_cli.hpp"
#include "vnsim/core/perf_model.hpp"
#include "vnsim/core/units.hpp"
#include "vnsim/policies/testing/spread_fifo.hpp"
#include "vnsim/sim/replay.hpp"

namespace {

using namespace vnsim;

constexpr int kNodesPerRack = 8;

// 2 racks x 8 nodes x 8 H100, one 100 Gb/s NIC per node, uplinks
// oversubscribed 4:1: fast GPUs on a thin network, so rings that cross racks
// spend much of each iteration fighting over the uplinks.
ClusterSpec bench_cluster() {
  ClusterSpec spec;
  spec.name = "bench-2rack";
  spec.link_efficiency = 1.0;
  const std::string type = "H100";
  for (int r = 0; r < 2; ++r) {
    RackSpec rack;
    rack.name = "r" + std::to_string(r);
    rack.oversubscription = 4.0;
    rack.uplink_latency_s = units::us_to_s(1);
    for (int n = 0; n < kNodesPerRack; ++n) {
      NodeSpec node;
      node.name = rack.name + "n" + std::to_string(n);
      node.gpu_types.assign(8, type);
      node.intra = IntraNodeLink{IntraLinkKind::NVLink, 300e9, units::us_to_s(0.5)};
      node.nic_bandwidth_Bps = units::gbps_to_Bps(100);
      node.nic_latency_s = units::us_to_s(1);
      rack.nodes.push_back(node);
    }
    spec.racks.push_back(rack);
  }
  return spec;
}

// Fixed seed: 16/32/64-GPU jobs (weights 50/35/15), 100-1000 iterations,
// a Pollux model chosen uniformly, Poisson arrivals every `mean_gap_s`.
std::vector<JobSpec> bench_workload(std::size_t count, std::uint64_t seed, double mean_gap_s) {
  std::mt19937_64 rng(seed);
  const ModelCatalog& models = ModelCatalog::builtin();
  // The six Pollux models, as when the documented numbers were measured (the
  // catalog also holds the Gavel-only models since; a fixed list keeps the
  // benchmark's workload, and so its numbers, comparable).
  const std::vector<std::string> names = {"bert", "cifar10", "deepspeech2", "imagenet", "ncf", "yolov3"};
  std::discrete_distribution<int> size_pick({50, 35, 15});
  std::uniform_int_distribution<long long> iters(100, 1000);
  std::uniform_int_distribution<std::size_t> model_pick(0, names.size() - 1);
  std::exponential_distribution<double> gap(1.0 / mean_gap_s);
  std::vector<JobSpec> jobs;
  double t = 0;
  for (std::size_t i = 0; i < count; ++i) {
    JobSpec j;
    j.id = "b" + std::to_string(i);
    j.submit_s = t;
    j.gpus = 16 << size_pick(rng);
    j.virtual_nodes = j.gpus;
    j.iterations = iters(rng);
    const ModelParams& m = models.at(names[model_pick(rng)]);
    j.model = m.name;
    j.global_batch = j.gpus * m.default_local_batch;
    jobs.push_back(j);
    t += gap(rng);
  }
  return jobs;
}

const char* const kUsage =
    "usage: macro_iterations M [jobs=300] [seed=42] [mean_gap_s=10] [shorten_macro_when_contended=1]\n"
    "Replays a seeded multi-node workload under heavy uplink contention on the actor engine with M\n"
    "macro-iterations per job (M = 0: every iteration simulated, the reference).";

int run(std::vector<std::string>& args) {
  if (args.empty()) throw bench::UsageError("missing M");
  bench::expect_at_most(args, 5);
  const std::size_t m_arg = bench::parse_count(args[0], "M");
  const std::size_t count = args.size() > 1 ? bench::parse_count(args[1], "jobs") : 300;
  const std::uint64_t seed = args.size() > 2 ? bench::parse_seed(args[2], "seed") : 42;
  const double mean_gap_s = args.size() > 3 ? bench::parse_number(args[3], "mean_gap_s") : 10.0;
  if (m_arg > 1000000 || count == 0 || !(mean_gap_s > 0))
    throw bench::UsageError("M must be in [0, 1e6], jobs > 0 and mean_gap_s > 0");
  const int m = static_cast<int>(m_arg);

  const Cluster cluster(bench_cluster());
  const std::vector<JobSpec> jobs = bench_workload(count, seed, mean_gap_s);
  testing::SpreadFifo policy(cluster, kNodesPerRack);
  ReplayOptions opts;
  opts.fluid_rings = false;  // the actor engine, whose macro-iterations this measures
  opts.macro_iterations = m;
  // Optional 5th argument: 0 = plain macro-iterations, 1 = per-iteration while contended.
  if (args.size() > 4)
    opts.shorten_macro_when_contended = bench::parse_count(args[4], "shorten_macro_when_contended") != 0;
  const auto t0 = std::chrono::steady_clock::now();
  const ReplayResult r =
      run_replay(cluster, GpuCatalog::builtin(), ModelCatalog::builtin(), jobs, policy, opts);
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

  // The idle-network time of each job's own placement: what contention adds to.
  const Topology topo(cluster);
  double iter_sum = 0, idle_sum = 0, jct_sum = 0;
  std::size_t done = 0;
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    const JobRecord& rec = r.jobs[i];
    if (rec.state != FinalState::Completed) continue;
    ++done;
    iter_sum += (rec.finish_s - rec.start_s) / static_cast<double>(rec.iterations);
    jct_sum += rec.jct_s();
    std::vector<GpuId> ring;
    for (const AllocationEvent& e : r.allocations)
      if (e.job == i && e.taken) ring = e.gpus;
    idle_sum +=
        iteration_time(topo, GpuCatalog::builtin(), ModelCatalog::builtin().at(jobs[i].model),
                       spread_virtual_nodes(ring, jobs[i].effective_virtual_nodes()), jobs[i].global_batch)
            .total_s;
  }
  if (done == 0) {
    std::fprintf(stderr, "no job completed\n");
    return 1;
  }
  std::printf(
      "M=%d contended_rule=%d jobs=%zu completed=%zu mean_iter_s=%.6f idle_iter_s=%.6f mean_jct_s=%.3f "
      "makespan_s=%.3f wall_s=%.2f\n",
      m, opts.shorten_macro_when_contended ? 1 : 0, jobs.size(), done, iter_sum / done, idle_sum / done,
      jct_sum / done, r.simulated_end_s, wall);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  return bench::run_bench_cli(argc, argv, kUsage, run);
}
