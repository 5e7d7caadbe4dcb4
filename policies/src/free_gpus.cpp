#include <set>

#include "vnsim/policies/placement.hpp"

namespace vnsim {

// Nothing here is sized by the cluster or the running list: a policy makes
// one of these on every event, and at 10,000 GPUs and thousands of running
// jobs a per-call copy or recount was most of a cheap policy's cost.
FreeGpus::FreeGpus(const ClusterView& view, const std::vector<RunningJob>& running)
    : view_(&view), running_(&running), total_(view.free_total()) {}

int FreeGpus::free_on_node(NodeId n) const {
  int free = view_->free_on_node(n);
  if (!node_delta_.empty())
    if (const auto it = node_delta_.find(n); it != node_delta_.end()) free += it->second;
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
  if (is_free(g) != free) node_delta_[cluster().gpu(g).node] += free ? 1 : -1;
  changed_[g] = free;
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
  if (const auto it = rack_delta_.find(r); it != rack_delta_.end()) jobs += it->second;
  return jobs;
}

void FreeGpus::count_multi_node(const std::vector<GpuId>& gpus, int delta) {
  std::set<RackId> racks;
  if (!multi_node_racks(gpus, racks)) return;
  for (RackId r : racks) rack_delta_[r] += delta;
}

bool FreeGpus::multi_node_racks(const std::vector<GpuId>& gpus, std::set<RackId>& racks) const {
  if (gpus.empty()) return false;
  const Cluster& c = cluster();
  const NodeId first = c.gpu(gpus.front()).node;
  bool multi = false;
  for (GpuId g : gpus) multi = multi || c.gpu(g).node != first;
  if (!multi) return false;
  for (GpuId g : gpus) racks.insert(c.gpu(g).rack);
  return true;
}

void FreeGpus::add_multi_node(std::vector<int>& per_rack, const std::vector<GpuId>& gpus, int delta) const {
  std::set<RackId> racks;
  if (!multi_node_racks(gpus, racks)) return;
  for (RackId r : racks) per_rack[r] += delta;
}

}  // namespace vnsim
