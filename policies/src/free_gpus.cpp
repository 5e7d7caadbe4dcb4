#include <algorithm>
#include <cstddef>
#include <vector>

#include "vnsim/policies/placement.hpp"

namespace vnsim {

// Nothing here is sized by the running list, and nothing by the cluster
// until the call changes something: a policy makes one of these on every
// event, and at 10,000 GPUs and thousands of running jobs a per-call copy or
// recount was most of a cheap policy's cost.
FreeGpus::FreeGpus(const ClusterView& view, const std::vector<RunningJob>& running)
    : view_(&view), running_(&running), total_(view.free_total()) {}

int FreeGpus::free_on_node(NodeId n) const {
  int free = view_->free_on_node(n);
  if (!node_delta_.empty()) free += node_delta_[static_cast<std::size_t>(n)];
  return free;
}

std::vector<GpuId> FreeGpus::on_node(NodeId n) const {
  std::vector<GpuId> out;
  if (free_on_node(n) == 0) return out;
  const NodeInfo& node = cluster().node(n);
  for (GpuId g = node.first_gpu; g < node.first_gpu + node.gpu_count; ++g)
    if (is_free(g)) out.push_back(g);
  return out;
}

void FreeGpus::set_free(GpuId g, bool free) {
  if (changed_.empty()) {
    changed_.assign(static_cast<std::size_t>(cluster().gpu_count()), -1);
    node_delta_.assign(static_cast<std::size_t>(cluster().node_count()), 0);
  }
  if (is_free(g) != free) node_delta_[static_cast<std::size_t>(cluster().gpu(g).node)] += free ? 1 : -1;
  changed_[static_cast<std::size_t>(g)] = free ? 1 : 0;
}

void FreeGpus::take(const std::vector<GpuId>& gpus) {
  for (GpuId g : gpus) {
    set_free(g, false);
    --total_;
  }
  count_multi_node(gpus, +1);
}

void FreeGpus::release(const std::vector<GpuId>& gpus) {
  for (GpuId g : gpus) {
    set_free(g, true);
    ++total_;
  }
  count_multi_node(gpus, -1);
}

int FreeGpus::multi_node_jobs_in_rack(RackId r) const {
  if (multi_node_per_rack_.empty()) {
    // First asked (topology-aware placement only): count the running jobs.
    multi_node_per_rack_.assign(cluster().rack_count(), 0);
    for (const RunningJob& job : *running_) add_multi_node(multi_node_per_rack_, job.placement.gpus, +1);
  }
  int jobs = multi_node_per_rack_[r];
  if (!rack_delta_.empty()) jobs += rack_delta_[static_cast<std::size_t>(r)];
  return jobs;
}

void FreeGpus::count_multi_node(const std::vector<GpuId>& gpus, int delta) {
  std::vector<RackId> racks;
  if (!multi_node_racks(gpus, racks)) return;
  if (rack_delta_.empty()) rack_delta_.assign(static_cast<std::size_t>(cluster().rack_count()), 0);
  for (RackId r : racks) rack_delta_[static_cast<std::size_t>(r)] += delta;
}

bool FreeGpus::multi_node_racks(const std::vector<GpuId>& gpus, std::vector<RackId>& racks) const {
  if (gpus.empty()) return false;
  const Cluster& c = cluster();
  const NodeId first = c.gpu(gpus.front()).node;
  bool multi = false;
  for (GpuId g : gpus) multi = multi || c.gpu(g).node != first;
  if (!multi) return false;
  for (GpuId g : gpus) racks.push_back(c.gpu(g).rack);
  std::sort(racks.begin(), racks.end());
  racks.erase(std::unique(racks.begin(), racks.end()), racks.end());
  return true;
}

void FreeGpus::add_multi_node(std::vector<int>& per_rack, const std::vector<GpuId>& gpus, int delta) const {
  std::vector<RackId> racks;
  if (!multi_node_racks(gpus, racks)) return;
  for (RackId r : racks) per_rack[static_cast<std::size_t>(r)] += delta;
}

}  // namespace vnsim
