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
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "vnsim/policies/policy.hpp"

namespace vnsim {

// The free GPUs during one decide() call: the view, minus GPUs handed out
// earlier in the call, plus GPUs of jobs preempted earlier in the call (the
// engine applies decisions in order, so those are free for later starts).
// It keeps only what this call changed on top of the view, so making or
// copying one costs what the call did, not the cluster's size.
class FreeGpus {
 public:
  FreeGpus(const ClusterView& view, const std::vector<RunningJob>& running);

  const Cluster& cluster() const { return view_->cluster(); }
  bool is_free(GpuId g) const {
    if (!changed_.empty() && changed_[static_cast<std::size_t>(g)] >= 0)
      return changed_[static_cast<std::size_t>(g)] != 0;
    return view_->is_free(g);
  }
  int free_on_node(NodeId n) const;
  std::vector<GpuId> on_node(NodeId n) const;  // ascending
  int total() const { return total_; }
  void take(const std::vector<GpuId>& gpus);
  void release(const std::vector<GpuId>& gpus);  // a running job preempted in this call
  // How many multi-node jobs (running or placed in this call) use the rack.
  // The running jobs are counted when first asked.
  int multi_node_jobs_in_rack(RackId r) const;

 private:
  void set_free(GpuId g, bool free);
  void count_multi_node(const std::vector<GpuId>& gpus, int delta);
  // The racks of a job that spans nodes, ascending and once each; false for
  // a one-node job.
  bool multi_node_racks(const std::vector<GpuId>& gpus, std::vector<RackId>& racks) const;
  void add_multi_node(std::vector<int>& per_rack, const std::vector<GpuId>& gpus, int delta) const;

  const ClusterView* view_;
  const std::vector<RunningJob>* running_;  // the decide() input's, alive for the call
  // What this call changed, one entry per GPU, node and rack, made at the
  // first change (a call that changes nothing allocates nothing): arrays of
  // bytes and ints cost a memset, where hash maps built and freed at every
  // call were a tenth of a time-slicing policy's CPU (docs/PERFORMANCE_HISTORY.md).
  std::vector<signed char> changed_;              // per GPU: -1 not changed, else free (1) or not (0) now
  std::vector<int> node_delta_;                   // per node: free GPUs gained minus taken
  std::vector<int> rack_delta_;                   // per rack: multi-node jobs taken minus released
  mutable std::vector<int> multi_node_per_rack_;  // of the running jobs; empty until asked
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
