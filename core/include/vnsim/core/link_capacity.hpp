#pragma once
// The effective capacity of each kind of cluster link: line rate times the
// efficiency factors of the cluster spec (docs/CLUSTER_SPEC.md). The one
// formula, called only where the Topology builds its links
// (core/src/topology.cpp); the SimGrid platform (sim/src/platform.cpp) and
// the collective cost model read the capacities from the Topology.
#include "vnsim/core/cluster.hpp"

namespace vnsim {

// A GPU's own NVLink/PCIe link: intra bandwidth x intra efficiency x link_efficiency.
double gpu_link_Bps(const Cluster& cluster, GpuId g);
// A node's NICs together: bandwidth x count x nic_efficiency x link_efficiency.
double node_nic_Bps(const Cluster& cluster, NodeId n);
// A rack's uplink: the line rate of its nodes' NICs / oversubscription x link_efficiency.
double rack_uplink_Bps(const Cluster& cluster, RackId r);

}  // namespace vnsim
