#include "vnsim/core/link_capacity.hpp"

namespace vnsim {

double gpu_link_Bps(const Cluster& cluster, GpuId g) {
  const IntraNodeLink& intra = cluster.node_spec(cluster.gpu(g).node).intra;
  return intra.bandwidth_Bps * intra.efficiency * cluster.spec().link_efficiency;
}

double node_nic_Bps(const Cluster& cluster, NodeId n) {
  const NodeSpec& ns = cluster.node_spec(n);
  const double line_Bps = ns.nic_bandwidth_Bps * ns.nic_count;
  return line_Bps * ns.nic_efficiency * cluster.spec().link_efficiency;
}

double rack_uplink_Bps(const Cluster& cluster, RackId r) {
  double nic_sum_Bps = 0;  // in node order, as every caller summed it before
  for (const NodeInfo& node : cluster.nodes()) {
    if (node.rack != r) continue;
    const NodeSpec& ns = cluster.node_spec(node.id);
    nic_sum_Bps += ns.nic_bandwidth_Bps * ns.nic_count;
  }
  return nic_sum_Bps / cluster.spec().racks[r].oversubscription * cluster.spec().link_efficiency;
}

}  // namespace vnsim
