#include <algorithm>

#include "placement_strategies.hpp"

namespace vnsim {
namespace {

// The Pollux simulator's placement for its Tiresias and Optimus baselines
// (petuum/adaptdl osdi21-artifact simulator/tiresias.py and optimus.py):
// repeatedly take as many GPUs as still needed
// from the node with the most free allowed GPUs (ties: lower node index).
// One-GPU jobs therefore spread over the emptiest nodes instead of packing.
class MostFreePlacement : public PlacementStrategy {
 public:
  std::string name() const override { return "most-free"; }
  std::optional<std::vector<GpuId>> place(const FreeGpus& free, int count, GpuTypeMask allowed) override {
    if (count <= 0 || count > free.total()) return std::nullopt;
    const Cluster& cluster = free.cluster();
    std::vector<std::vector<GpuId>> by_node(static_cast<std::size_t>(cluster.node_count()));
    for (NodeId n = 0; n < cluster.node_count(); ++n)
      for (GpuId g : free.on_node(n))
        if ((cluster.gpu_type_bit(g) & allowed) != 0) by_node[n].push_back(g);
    std::vector<NodeId> order(by_node.size());
    for (NodeId n = 0; n < cluster.node_count(); ++n) order[n] = n;
    // Taking a node's GPUs empties it (or ends the job), so one sort by the
    // initial free counts gives the same sequence as re-picking the maximum.
    std::stable_sort(order.begin(), order.end(),
                     [&](NodeId a, NodeId b) { return by_node[a].size() > by_node[b].size(); });
    std::vector<GpuId> out;
    for (NodeId n : order) {
      for (GpuId g : by_node[n]) {
        if (static_cast<int>(out.size()) == count) break;
        out.push_back(g);
      }
      if (static_cast<int>(out.size()) == count) break;
    }
    if (static_cast<int>(out.size()) < count) return std::nullopt;
    std::sort(out.begin(), out.end());
    return out;
  }
};

}  // namespace

std::unique_ptr<PlacementStrategy> make_most_free_placement() {
  return std::make_unique<MostFreePlacement>();
}

}  // namespace vnsim
