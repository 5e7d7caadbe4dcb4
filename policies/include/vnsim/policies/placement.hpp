#pragma once
// Placement strategies, composable with any policy that uses them: the
// policy decides which jobs run, the strategy decides on which GPUs.
//   "first-fit":      the lowest-numbered free GPUs of an allowed type.
//   "consolidated":   fewest nodes, then fewest racks (find_consolidated_gpus).
//   "topology-aware": consolidated, but a job that needs several nodes goes,
//                     when it can, to racks no other multi-node job uses, so
//                     different jobs do not share rack uplinks (AdaptDL).
//   "random":         free allowed GPUs drawn with a seeded mt19937_64.
//   "most-free":      as many GPUs as needed from the node with the most free
//                     ones, then the next (the Pollux simulator's baselines).
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "vnsim/policies/policy.hpp"

namespace vnsim {

// The free GPUs during one decide() call: the view, minus GPUs handed out
// earlier in the call, plus GPUs of jobs preempted earlier in the call (the
// engine applies decisions in order, so those are free for later starts).
class FreeGpus {
 public:
  FreeGpus(const ClusterView& view, const std::vector<RunningJob>& running);

  const Cluster& cluster() const { return view_->cluster(); }
  bool is_free(GpuId g) const { return (view_->is_free(g) || freed_[g] != 0) && taken_[g] == 0; }
  std::vector<GpuId> on_node(NodeId n) const;  // ascending
  int total() const { return total_; }
  void take(const std::vector<GpuId>& gpus);
  void release(const std::vector<GpuId>& gpus);  // a running job preempted in this call
  // How many multi-node jobs (running or placed in this call) use the rack.
  int multi_node_jobs_in_rack(RackId r) const { return multi_node_per_rack_[r]; }

 private:
  void count_multi_node(const std::vector<GpuId>& gpus, int delta);

  const ClusterView* view_;
  std::vector<char> taken_;
  std::vector<char> freed_;
  std::vector<int> multi_node_per_rack_;
  int total_ = 0;
};

class PlacementStrategy {
 public:
  virtual ~PlacementStrategy() = default;
  virtual std::string name() const = 0;
  // `count` free GPUs whose type is in `allowed`, sorted ascending, or
  // nullopt when there are not enough. Does not mark them taken.
  virtual std::optional<std::vector<GpuId>> place(const FreeGpus& free, int count, GpuTypeMask allowed) = 0;
};

// Throws InputError for unknown names. `seed` is used by "random" only.
std::unique_ptr<PlacementStrategy> make_placement(const std::string& name, std::uint64_t seed = 0);
std::vector<std::string> placement_names();

}  // namespace vnsim
