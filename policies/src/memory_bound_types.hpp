#pragma once
// The GPU type a data-parallel job is priced and memory-checked as on a set
// of nodes. Every replica runs the same local batch (accumulation steps x
// micro-batch), so the GPU with the least memory bounds the micro-batch of
// all of them: Pollux and Optimus choose the batch and accumulation for
// that type, not for the cluster's first type, or the engine would be told
// to run a micro-batch that the smaller GPUs cannot hold.
#include <string>
#include <utility>
#include <vector>

#include "vnsim/core/cluster.hpp"
#include "vnsim/policies/goodput_estimator.hpp"

namespace vnsim {

class MemoryBoundTypes {
 public:
  MemoryBoundTypes(const Cluster& cluster, const GoodputEstimator& estimator);

  // Distinct GPU types of the cluster, GPU 0's type first (index 0).
  const std::string& name(int type) const { return names_[static_cast<std::size_t>(type)]; }
  int count() const { return static_cast<int>(names_.size()); }
  // A node's type: of its GPUs, the one with the least memory.
  int of_node(std::size_t node) const { return node_type_[node]; }
  // Of two types, the one with less memory; ties to the lower index (so a
  // homogeneous cluster always gets type 0).
  int smaller(int a, int b) const {  // inline: Pollux's fitness asks per row
    const double ma = memory_[static_cast<std::size_t>(a)];
    const double mb = memory_[static_cast<std::size_t>(b)];
    if (ma != mb) return ma < mb ? a : b;
    return a < b ? a : b;
  }
  // The type bounding a job on these nodes; 0 when there are none.
  int of_nodes(const std::vector<std::pair<NodeId, int>>& gpus_per_node) const;

 private:
  std::vector<std::string> names_;
  std::vector<double> memory_;
  std::vector<int> node_type_;
};

}  // namespace vnsim
