#pragma once
// A two-node cluster of the reference GPU type, built in code so that the
// work-assignment tests do not depend on any preset file.
#include "vnsim/core/cluster.hpp"
#include "vnsim/core/gpu_catalog.hpp"
#include "vnsim/core/units.hpp"

namespace vnsim::testing {

inline ClusterSpec tiny_cluster_spec(int nodes = 2, int gpus_per_node = 4) {
  ClusterSpec spec;
  spec.name = "tiny";
  RackSpec rack;
  rack.name = "r0";
  for (int n = 0; n < nodes; ++n) {
    NodeSpec node;
    node.name = "n" + std::to_string(n);
    node.gpu_types.assign(gpus_per_node, GpuCatalog::builtin().reference());
    node.intra = IntraNodeLink{IntraLinkKind::NVLink, 100e9, units::us_to_s(1)};
    node.nic_bandwidth_Bps = units::gbps_to_Bps(100);
    node.nic_latency_s = units::us_to_s(5);
    rack.nodes.push_back(node);
  }
  spec.racks.push_back(rack);
  return spec;
}

}  // namespace vnsim::testing
