#pragma once
// Cluster: a validated ClusterSpec with flat, O(1) lookups by global GPU and
// node index. Everything downstream (policies, sim, real_exec) refers to GPUs
// by these indices.
#include <string>
#include <vector>

#include "vnsim/core/cluster_spec.hpp"

namespace vnsim {

using GpuId = int;
using NodeId = int;
using RackId = int;

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
  std::vector<std::string> gpu_types() const;
  int gpu_count_of_type(const std::string& type) const;
  int max_gpus_per_node() const;

 private:
  ClusterSpec spec_;
  std::vector<GpuInfo> gpus_;
  std::vector<NodeInfo> nodes_;
};

}  // namespace vnsim
