#include "vnsim/core/hetero_placement.hpp"

#include <algorithm>
#include <string>

namespace vnsim {

bool spans_gpu_types(const Cluster& cluster, const std::vector<GpuId>& gpus) {
  for (GpuId g : gpus)
    if (cluster.gpu(g).type != cluster.gpu(gpus.front()).type) return true;
  return false;
}

namespace {

// Index of each GPU's group, groups in order of first appearance.
std::vector<std::string> group_types(const Cluster& cluster, const std::vector<GpuId>& gpus,
                                     std::vector<int>& group_of) {
  std::vector<std::string> types;
  group_of.clear();
  for (GpuId g : gpus) {
    const std::string& type = cluster.gpu(g).type;
    auto it = std::find(types.begin(), types.end(), type);
    if (it == types.end()) it = types.insert(types.end(), type);
    group_of.push_back(static_cast<int>(it - types.begin()));
  }
  return types;
}

}  // namespace

std::vector<GpuTypeGroup> catalog_groups(const Cluster& cluster, const GpuCatalog& catalog,
                                         const ModelParams& model, const std::vector<GpuId>& gpus) {
  std::vector<int> group_of;
  const std::vector<std::string> types = group_types(cluster, gpus, group_of);
  std::vector<GpuTypeGroup> groups;
  for (const std::string& type : types) {
    const double speed = catalog.at(type).speed_for(model.name);
    groups.push_back(
        GpuTypeGroup{type, 0, [&model, speed](double m) { return model.micro_batch_time_s(m) / speed; }, 0});
  }
  for (int g : group_of) ++groups[g].gpus;
  return groups;
}

Placement split_placement_by_type(const Cluster& cluster, const GpuCatalog& catalog, const ModelParams& model,
                                  std::vector<GpuId> gpus, int virtual_nodes, int global_batch) {
  std::vector<int> group_of;
  group_types(cluster, gpus, group_of);
  const HeteroSplit split =
      split_virtual_nodes(catalog_groups(cluster, catalog, model, gpus), virtual_nodes, global_batch, 0.0);
  // The split lists GPUs group by group; hand them out in placement order.
  std::vector<std::size_t> next_in_group(split.min_units_per_group.size(), 0);
  std::vector<std::vector<int>> counts(split.min_units_per_group.size());
  for (const GpuShare& s : split.gpus) counts[s.group].push_back(s.virtual_nodes);
  Placement placement;
  placement.gpus = std::move(gpus);
  for (int g : group_of) placement.vn_per_gpu.push_back(counts[g][next_in_group[g]++]);
  return placement;
}

}  // namespace vnsim
