#include <set>

#include "vnsim/policies/placement.hpp"

namespace vnsim {

FreeGpus::FreeGpus(const ClusterView& view, const std::vector<RunningJob>& running)
    : view_(&view),
      taken_(view.cluster().gpu_count(), 0),
      freed_(view.cluster().gpu_count(), 0),
      multi_node_per_rack_(view.cluster().rack_count(), 0),
      total_(view.free_total()) {
  for (const RunningJob& r : running) count_multi_node(r.placement.gpus, +1);
}

std::vector<GpuId> FreeGpus::on_node(NodeId n) const {
  std::vector<GpuId> out;
  const NodeInfo& node = cluster().node(n);
  for (GpuId g = node.first_gpu; g < node.first_gpu + node.gpu_count; ++g)
    if (is_free(g)) out.push_back(g);
  return out;
}

void FreeGpus::take(const std::vector<GpuId>& gpus) {
  for (GpuId g : gpus) {
    taken_.at(g) = 1;
    --total_;
  }
  count_multi_node(gpus, +1);
}

void FreeGpus::release(const std::vector<GpuId>& gpus) {
  for (GpuId g : gpus) {
    if (taken_.at(g) != 0)
      taken_[g] = 0;  // placed earlier in this call, now given back
    else
      freed_[g] = 1;
    ++total_;
  }
  count_multi_node(gpus, -1);
}

void FreeGpus::count_multi_node(const std::vector<GpuId>& gpus, int delta) {
  if (gpus.empty()) return;
  const Cluster& c = cluster();
  const NodeId first = c.gpu(gpus.front()).node;
  bool multi = false;
  for (GpuId g : gpus) multi = multi || c.gpu(g).node != first;
  if (!multi) return;
  std::set<RackId> racks;
  for (GpuId g : gpus) racks.insert(c.gpu(g).rack);
  for (RackId r : racks) multi_node_per_rack_[r] += delta;
}

}  // namespace vnsim
