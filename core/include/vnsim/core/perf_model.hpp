#pragma once
// Analytic performance model shared by the simulator's fast path, the
// duration-to-work rule and policies' estimates. The SimGrid engine replaces
// only the communication term with simulated, contended transfers.
#include <vector>

#include "vnsim/core/cluster.hpp"
#include "vnsim/core/gpu_catalog.hpp"
#include "vnsim/core/model_catalog.hpp"
#include "vnsim/core/topology.hpp"

namespace vnsim {

// How a job's V virtual nodes are spread over its P GPUs: vn_per_gpu[i] is
// the number of virtual nodes GPU gpus[i] runs each step.
struct Placement {
  std::vector<GpuId> gpus;
  std::vector<int> vn_per_gpu;
};

// Even spread: the first V mod P GPUs get one extra virtual node.
Placement spread_virtual_nodes(std::vector<GpuId> gpus, int virtual_nodes);

struct IterationBreakdown {
  double compute_s = 0;    // slowest GPU's micro-batches, one after another
  double allreduce_s = 0;  // ring all-reduce of the gradient, idle network
  double total_s = 0;      // overlapped_step_s(compute, allreduce, model's overlap_fraction)
};

// One step with bucketed all-reduce overlapping the last fraction f of the
// compute (DDP-like): (1-f)*compute + max(f*compute, allreduce). f = 0 is
// compute + allreduce, f = 1 is max(compute, allreduce). Throws unless f is
// in [0, 1].
double overlapped_step_s(double compute_s, double allreduce_s, double overlap_fraction);

// Ring all-reduce of `bytes` over `ring` (in ring order) on an idle network:
// 2(N-1) steps, each paying the slowest hop's latency + (bytes/N)/bandwidth.
double ring_allreduce_time_s(const Topology& topo, const std::vector<GpuId>& ring, double bytes);

// Local batch per virtual node = global_batch / V.
IterationBreakdown iteration_time(const Topology& topo, const GpuCatalog& gpus, const ModelParams& model,
                                  const Placement& placement, int global_batch);

}  // namespace vnsim
