#include "placement_strategies.hpp"
#include "vnsim/core/consolidated_placement.hpp"

namespace vnsim {
namespace {

bool on_one_node(const Cluster& cluster, const std::vector<GpuId>& gpus) {
  for (GpuId g : gpus)
    if (cluster.gpu(g).node != cluster.gpu(gpus.front()).node) return false;
  return true;
}

// A job on one node uses no uplink, so it is simply consolidated. A job that
// needs several nodes is consolidated over the racks no other multi-node job
// uses, and only falls back to shared racks when those lack room.
class TopologyAwarePlacement : public PlacementStrategy {
 public:
  std::string name() const override { return "topology-aware"; }
  std::optional<std::vector<GpuId>> place(const FreeGpus& free, int count, GpuTypeMask allowed) override {
    if (count <= 0 || count > free.total()) return std::nullopt;
    const Cluster& cluster = free.cluster();
    auto anywhere = find_consolidated_gpus(
        cluster, [&](NodeId n) { return free.on_node(n); }, count, allowed,
        [&](NodeId n) { return free.free_on_node(n); });
    if (!anywhere || on_one_node(cluster, *anywhere)) return anywhere;
    auto unshared = find_consolidated_gpus(
        cluster,
        [&](NodeId n) {
          return free.multi_node_jobs_in_rack(cluster.node(n).rack) == 0 ? free.on_node(n)
                                                                         : std::vector<GpuId>{};
        },
        count, allowed);
    return unshared ? unshared : anywhere;
  }
};

}  // namespace

std::unique_ptr<PlacementStrategy> make_topology_aware_placement() {
  return std::make_unique<TopologyAwarePlacement>();
}

}  // namespace vnsim
