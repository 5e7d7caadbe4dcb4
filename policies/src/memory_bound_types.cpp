#include "memory_bound_types.hpp"

#include <algorithm>

namespace vnsim {

MemoryBoundTypes::MemoryBoundTypes(const Cluster& cluster, const GoodputEstimator& estimator) {
  auto index_of = [&](const std::string& type) {
    const auto it = std::find(names_.begin(), names_.end(), type);
    if (it != names_.end()) return static_cast<int>(it - names_.begin());
    names_.push_back(type);
    memory_.push_back(estimator.memory_bytes(type));
    return count() - 1;
  };
  if (cluster.gpu_count() > 0) index_of(cluster.gpu(0).type);
  for (const NodeInfo& n : cluster.nodes()) {
    int type = -1;
    for (GpuId g = n.first_gpu; g < n.first_gpu + n.gpu_count; ++g) {
      const int t = index_of(cluster.gpu(g).type);
      type = type < 0 ? t : smaller(type, t);
    }
    node_type_.push_back(std::max(0, type));
  }
}

int MemoryBoundTypes::of_nodes(const std::vector<std::pair<NodeId, int>>& gpus_per_node) const {
  int type = -1;
  for (const auto& [node, count] : gpus_per_node) {
    if (count <= 0) continue;
    type = type < 0 ? of_node(node) : smaller(type, of_node(node));
  }
  return std::max(0, type);
}

}  // namespace vnsim
