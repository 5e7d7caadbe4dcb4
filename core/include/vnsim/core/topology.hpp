#pragma once
// Topology: a Boost.Graph of the cluster's links, for queries that do not
// need the simulator: the path between two GPUs, its hop count and its
// bottleneck bandwidth, and node/rack locality.
#include <memory>
#include <string>
#include <vector>

#include "vnsim/core/cluster.hpp"

namespace vnsim {

enum class Locality { SameGpu, SameNode, SameRack, CrossRack };

struct PathInfo {
  std::vector<std::string> links;  // link names along the path, e.g. "r0n1g3-nvl"
  int hops = 0;                    // number of links crossed
  double bottleneck_Bps = 0;       // min bandwidth along the path (after link_efficiency); inf for SameGpu
  double latency_s = 0;            // sum of link latencies
};

class Topology {
 public:
  explicit Topology(const Cluster& cluster);
  ~Topology();
  Topology(const Topology&) = delete;
  Topology& operator=(const Topology&) = delete;

  const Cluster& cluster() const { return cluster_; }
  PathInfo path(GpuId a, GpuId b) const;
  Locality locality(GpuId a, GpuId b) const;

  // Uplink bandwidth of a rack (ToR -> spine), bytes/s after efficiency.
  double rack_uplink_Bps(RackId r) const;
  // A node's total NIC bandwidth, bytes/s after efficiency.
  double node_nic_Bps(NodeId n) const;

 private:
  struct Graph;
  const Cluster& cluster_;
  std::unique_ptr<Graph> graph_;
};

}  // namespace vnsim
