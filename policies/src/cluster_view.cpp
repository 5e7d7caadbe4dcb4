#include <stdexcept>

#include "vnsim/policies/policy.hpp"

namespace vnsim {

ClusterView::ClusterView(const Cluster& cluster, const Topology& topology)
    : cluster_(cluster),
      topology_(topology),
      owner_(cluster.gpu_count(), -1),
      free_per_node_(cluster.node_count()),
      free_total_(cluster.gpu_count()) {
  for (const auto& n : cluster.nodes()) free_per_node_[n.id] = n.gpu_count;
}

std::vector<GpuId> ClusterView::free_gpus_on_node(NodeId n) const {
  std::vector<GpuId> out;
  const auto& node = cluster_.node(n);
  for (GpuId g = node.first_gpu; g < node.first_gpu + node.gpu_count; ++g)
    if (owner_[g] < 0) out.push_back(g);
  return out;
}

void ClusterView::allocate(const std::vector<GpuId>& gpus, JobIndex job) {
  for (GpuId g : gpus) {
    if (g < 0 || g >= cluster_.gpu_count()) throw std::logic_error("allocate: GPU id out of range");
    if (owner_[g] >= 0)
      throw std::logic_error("allocate: GPU " + std::to_string(g) + " already held by job " +
                             std::to_string(owner_[g]) + ", asked for by job " + std::to_string(job));
  }
  for (GpuId g : gpus) {
    owner_[g] = static_cast<long long>(job);
    --free_per_node_[cluster_.gpu(g).node];
    --free_total_;
  }
}

void ClusterView::release(const std::vector<GpuId>& gpus, JobIndex job) {
  for (GpuId g : gpus)
    if (owner_.at(g) != static_cast<long long>(job))
      throw std::logic_error("release: GPU " + std::to_string(g) + " is not held by job " +
                             std::to_string(job));
  for (GpuId g : gpus) {
    owner_[g] = -1;
    ++free_per_node_[cluster_.gpu(g).node];
    ++free_total_;
  }
}

}  // namespace vnsim
