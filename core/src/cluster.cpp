#include "vnsim/core/cluster.hpp"

#include <algorithm>
#include <set>

#include "vnsim/core/error.hpp"

namespace vnsim {
namespace {

// parse_cluster_spec already validates JSON input; specs built in code (tests,
// benchmarks) get the structural checks here, so every Cluster is sound.
void check_structure(const ClusterSpec& spec) {
  const std::string where = "cluster spec '" + spec.name + "': ";
  if (spec.racks.empty()) throw InputError(where + "has no racks");
  if (!(spec.link_efficiency > 0 && spec.link_efficiency <= 1))
    throw InputError(where + "link_efficiency must be in (0, 1]");
  std::set<std::string> names;
  for (const RackSpec& rack : spec.racks) {
    if (!names.insert(rack.name).second) throw InputError(where + "name '" + rack.name + "' is used twice");
    if (rack.nodes.empty()) throw InputError(where + "rack '" + rack.name + "' has no nodes");
    if (!(rack.oversubscription > 0))
      throw InputError(where + "rack '" + rack.name + "' needs a positive oversubscription");
    for (const NodeSpec& node : rack.nodes) {
      if (!names.insert(node.name).second) throw InputError(where + "name '" + node.name + "' is used twice");
      if (node.gpu_types.empty()) throw InputError(where + "node '" + node.name + "' has no GPUs");
      if (!(node.intra.bandwidth_Bps > 0) || !(node.nic_bandwidth_Bps > 0) || node.nic_count < 1)
        throw InputError(where + "node '" + node.name + "' needs positive link bandwidths and NIC count");
    }
  }
}

}  // namespace

Cluster::Cluster(ClusterSpec spec) : spec_(std::move(spec)) {
  check_structure(spec_);
  for (RackId r = 0; r < rack_count(); ++r) {
    for (const NodeSpec& ns : spec_.racks[r].nodes) {
      const NodeId n = node_count();
      nodes_.push_back(NodeInfo{n, r, ns.name, gpu_count(), static_cast<int>(ns.gpu_types.size())});
      for (int i = 0; i < static_cast<int>(ns.gpu_types.size()); ++i)
        gpus_.push_back(GpuInfo{gpu_count(), n, r, i, ns.gpu_types[i]});
    }
  }
  std::set<std::string> types;
  for (const GpuInfo& g : gpus_) types.insert(g.type);
  type_names_.assign(types.begin(), types.end());
  if (type_names_.size() > 64)
    throw InputError("cluster spec '" + spec_.name + "': more than 64 distinct GPU types");
  gpu_type_index_.reserve(gpus_.size());
  node_type_mask_.assign(nodes_.size(), 0);
  type_gpu_count_.assign(type_names_.size(), 0);
  for (const GpuInfo& g : gpus_) {
    gpu_type_index_.push_back(type_index(g.type));
    ++type_gpu_count_[gpu_type_index_.back()];
    node_type_mask_[g.node] |= gpu_type_bit(g.id);
  }
}

int Cluster::type_index(const std::string& type) const {
  auto it = std::lower_bound(type_names_.begin(), type_names_.end(), type);
  return it != type_names_.end() && *it == type ? static_cast<int>(it - type_names_.begin()) : -1;
}

GpuTypeMask Cluster::type_mask(const std::optional<std::string>& type) const {
  if (!type) return kAnyGpuType;
  const int i = type_index(*type);
  return i < 0 ? GpuTypeMask{0} : GpuTypeMask{1} << i;
}

const NodeSpec& Cluster::node_spec(NodeId n) const {
  const NodeInfo& info = node(n);
  // A rack's nodes have consecutive ids, so walking back finds the rack's first.
  NodeId first_in_rack = info.id;
  while (first_in_rack > 0 && nodes_[first_in_rack - 1].rack == info.rack) --first_in_rack;
  return spec_.racks[info.rack].nodes[info.id - first_in_rack];
}

int Cluster::gpu_count_of_type(const std::string& type) const {
  const int i = type_index(type);
  return i < 0 ? 0 : type_gpu_count_[i];
}

int Cluster::gpu_count_in(GpuTypeMask types) const {
  int n = 0;
  for (std::size_t i = 0; i < type_names_.size(); ++i)
    if (types & (GpuTypeMask{1} << i)) n += type_gpu_count_[i];
  return n;
}

int Cluster::max_gpus_per_node() const {
  int most = 0;
  for (const NodeInfo& n : nodes_) most = std::max(most, n.gpu_count);
  return most;
}

}  // namespace vnsim
