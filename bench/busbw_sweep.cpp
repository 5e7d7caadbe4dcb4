// Ring all-reduce busbw of one cluster at one GPU count, simulated on
// SimGrid, as CSV for notebooks_out/network_busbw (docs/NETWORK.md).
// Usage: busbw_sweep CLUSTER GPUS [MIN_BYTES [MAX_BYTES]]
// One SimGrid engine per process, hence one GPU count per run.
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>
#include <vector>

#include "vnsim/core/cluster.hpp"
#include "vnsim/core/cluster_spec.hpp"
#include "vnsim/core/collectives.hpp"
#include "vnsim/core/gpu_catalog.hpp"
#include "vnsim/core/topology.hpp"
#include "vnsim/sim/collective_bench.hpp"

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: %s CLUSTER GPUS [MIN_BYTES [MAX_BYTES]]\n", argv[0]);
    return 2;
  }
  try {
    using namespace vnsim;
    const Cluster cluster(load_cluster_spec(argv[1]));
    const int gpus = std::atoi(argv[2]);
    const double min_bytes = argc > 3 ? std::atof(argv[3]) : 1 << 20;
    const double max_bytes = argc > 4 ? std::atof(argv[4]) : 4.0 * (1 << 30);
    if (gpus < 2 || gpus > cluster.gpu_count() || !(min_bytes > 0) || max_bytes < min_bytes) {
      std::fprintf(stderr, "bad arguments\n");
      return 2;
    }
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
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
  return 0;
}
