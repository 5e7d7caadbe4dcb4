#pragma once
// Heterogeneous split (VirtualFlow §"heterogeneous training"): one job's
// global step spread over GPUs of several types so that the slowest GPU
// finishes as early as possible. The iteration time is that GPU's compute
// plus the cross-type collective; every GPU of the job takes part in the
// collective whatever the split, so the collective is a constant the caller
// passes in (choosing which GPUs to use is the placement's job).
//
// Two granularities:
//   - virtual nodes: V equal virtual nodes of B/V samples; faster GPUs get
//     more of them. Per-sample semantics are those of V devices.
//   - batch: each GPU gets an integer local batch (sum = B), run as micro-
//     batches no larger than its type's memory cap. Gradients are then
//     averaged with weights local_batch / B.
#include <functional>
#include <string>
#include <vector>

namespace vnsim {

// The GPUs of one type in the job's placement.
struct GpuTypeGroup {
  std::string type;
  int gpus = 0;
  // Seconds for one forward+backward micro-batch of m samples on one GPU of
  // this type. Must not decrease as m grows.
  std::function<double(double m)> micro_batch_s;
  // Largest micro-batch that fits the type's memory (batch mode); 0 = none.
  int max_micro_batch = 0;
};

struct GpuShare {
  int group = 0;           // index into the groups
  int virtual_nodes = 0;   // virtual-node mode; 0 in batch mode
  int local_batch = 0;     // samples per step on this GPU
  int micro_batches = 0;   // run one after another, one gradient buffer
  double compute_s = 0;    // this GPU's compute per step
  double gradient_weight;  // local_batch / B: its share of the averaged gradient
};

struct HeteroSplit {
  // One entry per GPU, groups in order, GPUs of a group consecutive.
  std::vector<GpuShare> gpus;
  double compute_s = 0;  // slowest GPU
  double collective_s = 0;
  double total_s = 0;  // compute + collective (no overlap, as perf_model)
  // Per group: the smallest and largest per-GPU count (virtual nodes or
  // local batch) inside the group; they differ by at most one unit.
  std::vector<int> min_units_per_group;
  std::vector<int> max_units_per_group;
};

// Virtual-node mode: V virtual nodes of global_batch / V samples each, at
// least one per GPU (V >= total GPUs). Minimises the slowest GPU's
// count * micro_batch_s(B/V). Throws std::invalid_argument on bad input.
HeteroSplit split_virtual_nodes(const std::vector<GpuTypeGroup>& groups, int virtual_nodes, int global_batch,
                                double collective_s);

// Batch mode: integer local batches, at least one sample per GPU
// (global_batch >= total GPUs). A GPU with local batch b runs
// k = ceil(b / max_micro_batch) micro-batches of b / k samples; its time is
// k * micro_batch_s(b / k), rounded up so that more samples never take less
// time. Minimises the slowest GPU's time.
HeteroSplit split_batch(const std::vector<GpuTypeGroup>& groups, int global_batch, double collective_s);

// The per-GPU time the batch mode assigns to local batch b before the
// monotone rounding (exposed for tests and brute-force checks).
double batch_step_s(const GpuTypeGroup& group, int local_batch);

}  // namespace vnsim
