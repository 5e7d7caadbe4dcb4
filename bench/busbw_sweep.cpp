// Ring all-reduce busbw of one cluster at one GPU count, simulated on
// SimGrid, as CSV for notebooks_out/network_busbw (docs/NETWORK.md).
// Usage: busbw_sweep CLUSTER GPUS [MIN_BYTES [MAX_BYTES]]
// One SimGrid engine per process, hence one GPU count per run.
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>
#include <vector>

#include "cli/bench_cli.hpp"
#include "vnsim/core/cluster.hpp"
#include "vnsim/core/cluster_spec.hpp"
#include "vnsim/core/collectives.hpp"
#include "vnsim/core/gpu_catalog.hpp"
#include "vnsim/core/topology.hpp"
#include "vnsim/sim/collective_bench.hpp"

namespace {

const char* const kUsage =
    "usage: busbw_sweep CLUSTER GPUS [MIN_BYTES=1048576 [MAX_BYTES=4294967296]]\n"
    "Simulates a ring all-reduce on the first GPUS GPUs of CLUSTER (a preset or a spec file) for message\n"
    "sizes doubling from MIN_BYTES to MAX_BYTES; prints CSV (bytes, simulated and analytic s, busbw).";

int run(std::vector<std::string>& args) {
  using namespace vnsim;
  bench::expect_at_most(args, 4);
  if (args.size() < 2) throw bench::UsageError("expected CLUSTER and GPUS");
  const Cluster cluster(load_cluster_spec(args[0]));
  const std::size_t gpus_arg = bench::parse_count(args[1], "GPUS");
  const double min_bytes = args.size() > 2 ? bench::parse_number(args[2], "MIN_BYTES") : 1 << 20;
  const double max_bytes = args.size() > 3 ? bench::parse_number(args[3], "MAX_BYTES") : 4.0 * (1 << 30);
  if (gpus_arg < 2 || gpus_arg > static_cast<std::size_t>(cluster.gpu_count()))
    throw bench::UsageError("GPUS must be in [2, " + std::to_string(cluster.gpu_count()) + "]");
  if (!(min_bytes > 0) || max_bytes < min_bytes) throw bench::UsageError("need 0 < MIN_BYTES <= MAX_BYTES");
  const int gpus = static_cast<int>(gpus_arg);
  std::vector<GpuId> all;
  for (GpuId g = 0; g < static_cast<GpuId>(gpus); ++g) all.push_back(g);
  const std::vector<GpuId> ranks = topology_ring_order(cluster, all);
  const Topology topo(cluster);
  std::vector<double> sizes;
  std::vector<double> analytic;
  std::vector<std::vector<CollectiveSchedule>> batches;
  for (double s = min_bytes; s <= max_bytes; s *= 2) {
    sizes.push_back(s);
    batches.push_back({build_schedule(cluster, CollectiveOp::AllReduce, CollectiveAlgo::Ring, ranks, s)});
    analytic.push_back(schedule_time(topo, batches.back().front()));
  }
  const auto simulated = simulate_collective_batches(cluster, GpuCatalog::builtin(), batches);
  const double factor = busbw_factor(CollectiveOp::AllReduce, gpus);
  std::printf("cluster,gpus,bytes,simulated_s,analytic_s,busbw_GBps\n");
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    const double t = simulated[i].at(0);
    std::printf("%s,%d,%.0f,%.9g,%.9g,%.4f\n", cluster.spec().name.c_str(), gpus, sizes[i], t, analytic[i],
                sizes[i] / t / 1e9 * factor);
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  return vnsim::bench::run_bench_cli(argc, argv, kUsage, run);
}
