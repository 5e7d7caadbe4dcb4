#pragma once
// Cluster: a validated ClusterSpec with flat, O(1) lookups by global GPU and
// node index. Everything downstream (policies, sim, real_exec) refers to GPUs
// by these indices.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "vnsim/core/cluster_spec.hpp"

namespace vnsim {

using GpuId = int;
using NodeId = int;
using RackId = int;
// A set of the cluster's GPU types: bit i stands for gpu_types()[i]. Sets let
// placement skip nodes of the wrong type in O(1) per node.
using GpuTypeMask = std::uint64_t;
constexpr GpuTypeMask kAnyGpuType = ~GpuTypeMask{0};

struct GpuInfo {
  GpuId id;
  NodeId node;
  RackId rack;
  int local_index;  // index inside its node
  std::string type;
};

struct NodeInfo {
  NodeId id;
  RackId rack;
  std::string name;
  GpuId first_gpu;  // GPUs of a node are contiguous: [first_gpu, first_gpu + gpu_count)
  int gpu_count;
};

class Cluster {
 public:
  explicit Cluster(ClusterSpec spec);

  const ClusterSpec& spec() const { return spec_; }
  int gpu_count() const { return static_cast<int>(gpus_.size()); }
  int node_count() const { return static_cast<int>(nodes_.size()); }
  int rack_count() const { return static_cast<int>(spec_.racks.size()); }
  const GpuInfo& gpu(GpuId g) const { return gpus_.at(g); }
  const NodeInfo& node(NodeId n) const { return nodes_.at(n); }
  const NodeSpec& node_spec(NodeId n) const;
  const std::vector<GpuInfo>& gpus() const { return gpus_; }
  const std::vector<NodeInfo>& nodes() const { return nodes_; }

  // Distinct GPU type names present, sorted.
  const std::vector<std::string>& gpu_types() const { return type_names_; }
  // Index into gpu_types(), or -1 when the cluster has no GPU of that type.
  int type_index(const std::string& type) const;
  GpuTypeMask gpu_type_bit(GpuId g) const { return GpuTypeMask{1} << gpu_type_index_[g]; }
  GpuTypeMask node_type_mask(NodeId n) const { return node_type_mask_[n]; }
  // nullopt means any type; a type the cluster lacks gives the empty set.
  GpuTypeMask type_mask(const std::optional<std::string>& type) const;
  int gpu_count_of_type(const std::string& type) const;
  int gpu_count_in(GpuTypeMask types) const;
  int max_gpus_per_node() const;

 private:
  ClusterSpec spec_;
  std::vector<GpuInfo> gpus_;
  std::vector<NodeInfo> nodes_;
  std::vector<std::string> type_names_;
  std::vector<int> gpu_type_index_;
  std::vector<GpuTypeMask> node_type_mask_;
  std::vector<int> type_gpu_count_;
};

}  // namespace vnsim
