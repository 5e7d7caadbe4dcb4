#pragma once
// The smallest cluster the policy tests decide on: one rack, one node of
// `gpus` V100s on NVLink, so every placement is consolidated and the
// hand-computed answers depend only on the policy.
#include <string>

#include "vnsim/core/cluster_spec.hpp"

namespace vnsim::testing {

inline ClusterSpec single_v100_node(int gpus) {
  ClusterSpec spec;
  spec.name = "test-1x1x" + std::to_string(gpus);
  RackSpec rack;
  rack.name = "r0";
  NodeSpec node;
  node.name = "n0";
  node.gpu_types.assign(gpus, "V100");
  node.intra = {IntraLinkKind::NVLink, 150e9, 1e-6};
  node.nic_bandwidth_Bps = 12.5e9;
  rack.nodes.push_back(node);
  spec.racks.push_back(rack);
  return spec;
}

}  // namespace vnsim::testing
