#include "vnsim/core/perf_model.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace vnsim {

Placement spread_virtual_nodes(std::vector<GpuId> gpus, int virtual_nodes) {
  const int p = static_cast<int>(gpus.size());
  if (p == 0) throw std::invalid_argument("spread_virtual_nodes: no GPUs");
  // With V < P some GPU would hold no virtual node: not a VirtualFlow mapping.
  if (virtual_nodes < p) {
    throw std::invalid_argument("spread_virtual_nodes: " + std::to_string(virtual_nodes) +
                                " virtual nodes cannot cover " + std::to_string(p) + " GPUs");
  }
  Placement placement;
  placement.gpus = std::move(gpus);
  placement.vn_per_gpu.reserve(p);
  for (int i = 0; i < p; ++i)
    placement.vn_per_gpu.push_back(virtual_nodes / p + (i < virtual_nodes % p ? 1 : 0));
  return placement;
}

// Each of the 2(N-1) steps (reduce-scatter, then all-gather) moves one
// bytes/N chunk over every hop at once, so a step lasts as long as its
// slowest hop. The hops are priced as if alone on the network: a ring never
// contends with itself when laid out in GPU order over consolidated nodes,
// because it then crosses each NIC once per direction; other rings sharing
// links are the SimGrid engine's job.
double ring_allreduce_time_s(const Topology& topo, const std::vector<GpuId>& ring, double bytes) {
  const std::size_t n = ring.size();
  if (n <= 1) return 0;
  if (bytes < 0) throw std::invalid_argument("ring_allreduce_time_s: negative message size");
  const double chunk = bytes / static_cast<double>(n);
  double step_s = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const PathCost path = topo.path_cost(ring[i], ring[(i + 1) % n]);
    step_s = std::max(step_s, path.latency_s + chunk / path.bottleneck_Bps);
  }
  return 2.0 * static_cast<double>(n - 1) * step_s;
}

IterationBreakdown iteration_time(const Topology& topo, const GpuCatalog& gpus, const ModelParams& model,
                                  const Placement& placement, int global_batch) {
  if (placement.gpus.empty() || placement.gpus.size() != placement.vn_per_gpu.size()) {
    throw std::invalid_argument("iteration_time: placement needs one virtual-node count per GPU");
  }
  if (global_batch <= 0) throw std::invalid_argument("iteration_time: global batch must be > 0");
  int virtual_nodes = 0;
  for (int vn : placement.vn_per_gpu) {
    if (vn < 1) throw std::invalid_argument("iteration_time: every GPU must run at least one virtual node");
    virtual_nodes += vn;
  }
  const double local_batch = static_cast<double>(global_batch) / virtual_nodes;
  const double micro_batch_s = model.micro_batch_time_s(local_batch);

  const double extra_s = model.step_extra_s(static_cast<int>(placement.gpus.size()));
  IterationBreakdown out;
  for (std::size_t i = 0; i < placement.gpus.size(); ++i) {
    const GpuType& type = gpus.at(topo.cluster().gpu(placement.gpus[i]).type);
    // A GPU runs its virtual nodes one after another (gradient accumulation).
    out.compute_s = std::max(
        out.compute_s, (placement.vn_per_gpu[i] * micro_batch_s + extra_s) / type.speed_for(model.name));
  }
  out.allreduce_s = ring_allreduce_time_s(topo, placement.gpus, model.gradient_bytes);
  out.total_s = overlapped_step_s(out.compute_s, out.allreduce_s, model.overlap_fraction);
  return out;
}

// Gradients of the last layers are ready first, so their buckets' all-reduce
// can run during the rest of the backward pass; the part of the step before
// the first bucket is ready cannot overlap anything.
double overlapped_step_s(double compute_s, double allreduce_s, double overlap_fraction) {
  if (!(overlap_fraction >= 0 && overlap_fraction <= 1))
    throw std::invalid_argument("overlapped_step_s: overlap fraction must be in [0, 1], got " +
                                std::to_string(overlap_fraction));
  const double hidden_window_s = overlap_fraction * compute_s;
  return (compute_s - hidden_window_s) + std::max(hidden_window_s, allreduce_s);
}

}  // namespace vnsim
