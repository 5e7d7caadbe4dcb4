#pragma once
// Round-based elastic policies (Pollux, Sia, Optimus) compute a target
// allocation per job; this turns the targets into engine decisions:
// preemptions first, then resizes in an order where every joining GPU is
// already free, then starts. Resizes that wait on each other in a cycle
// become a preemption plus a start.
#include <utility>
#include <vector>

#include "vnsim/policies/policy.hpp"

namespace vnsim {

struct TargetAllocation {
  JobIndex job;
  std::vector<std::pair<NodeId, int>> gpus_per_node;  // empty: hold no GPU
  int global_batch = 0;                               // 0: keep the current batch
  int vn_per_gpu = 1;                                 // accumulation steps + 1
  bool batch_changed = false;                         // resize in place even if the GPUs stay
  int current_batch = 0;                              // the job's batch now (for starts)
};

// Running jobs without a target keep their GPUs; queued jobs without one
// stay queued. `mode` is how running jobs move (Pollux, Sia:
// CheckpointRestart).
std::vector<Decision> apply_targets(const SchedulerInput& input, const std::vector<TargetAllocation>& targets,
                                    ResizeMode mode);

// GPUs per node of a placement, by node id.
std::vector<std::pair<NodeId, int>> gpus_per_node(const Cluster& cluster, const std::vector<GpuId>& gpus);

}  // namespace vnsim
