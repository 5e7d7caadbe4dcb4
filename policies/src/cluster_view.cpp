#include <algorithm>
#include <stdexcept>

#include "vnsim/policies/policy.hpp"

namespace vnsim {

ClusterView::ClusterView(const Cluster& cluster, const Topology& topology)
    : cluster_(cluster),
      topology_(topology),
      tenants_(cluster.gpu_count()),
      used_milli_(cluster.gpu_count(), 0),
      free_per_node_(cluster.node_count()),
      free_total_(cluster.gpu_count()) {
  for (const auto& n : cluster.nodes()) free_per_node_[n.id] = n.gpu_count;
}

std::vector<GpuId> ClusterView::free_gpus_on_node(NodeId n) const {
  std::vector<GpuId> out;
  const auto& node = cluster_.node(n);
  for (GpuId g = node.first_gpu; g < node.first_gpu + node.gpu_count; ++g)
    if (tenants_[g].empty()) out.push_back(g);
  return out;
}

void ClusterView::allocate(const std::vector<GpuId>& gpus, JobIndex job, int milli) {
  if (milli < 1 || milli > kGpuMilli)
    throw std::logic_error("allocate: job " + std::to_string(job) + " asks for " + std::to_string(milli) +
                           " milli of a GPU, must be 1.." + std::to_string(kGpuMilli));
  for (GpuId g : gpus) {
    if (g < 0 || g >= cluster_.gpu_count()) throw std::logic_error("allocate: GPU id out of range");
    for (const GpuTenant& t : tenants_[g])
      if (t.job == job)
        throw std::logic_error("allocate: job " + std::to_string(job) + " already holds GPU " +
                               std::to_string(g));
    if (used_milli_[g] + milli > kGpuMilli) {
      std::string holders;
      for (const GpuTenant& t : tenants_[g])
        holders +=
            (holders.empty() ? "" : ", ") + std::to_string(t.job) + " (" + std::to_string(t.milli) + ")";
      throw std::logic_error("allocate: GPU " + std::to_string(g) + " already held by job " + holders +
                             ", asked for " + std::to_string(milli) + " milli by job " + std::to_string(job));
    }
  }
  for (GpuId g : gpus) {
    if (tenants_[g].empty()) {
      --free_per_node_[cluster_.gpu(g).node];
      --free_total_;
    }
    tenants_[g].push_back(GpuTenant{job, milli});
    used_milli_[g] += milli;
  }
}

void ClusterView::release(const std::vector<GpuId>& gpus, JobIndex job) {
  auto held = [&](GpuId g) {
    const auto& ts = tenants_.at(g);
    return std::find_if(ts.begin(), ts.end(), [&](const GpuTenant& t) { return t.job == job; });
  };
  for (GpuId g : gpus)
    if (held(g) == tenants_[g].end())
      throw std::logic_error("release: GPU " + std::to_string(g) + " is not held by job " +
                             std::to_string(job));
  for (GpuId g : gpus) {
    const auto it = held(g);
    used_milli_[g] -= it->milli;
    tenants_[g].erase(it);
    if (tenants_[g].empty()) {
      ++free_per_node_[cluster_.gpu(g).node];
      ++free_total_;
    }
  }
}

}  // namespace vnsim
