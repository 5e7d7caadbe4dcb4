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

// What a path costs a transfer, without its links' names: path()'s
// bottleneck and latency, bit for bit (the same links, summed in the same
// order), with no allocation. The ring all-reduce price asks for it at every
// ring start and every change of a ring's speed (docs/PERFORMANCE_HISTORY.md,
// "Ring starts and stops (tenth pass)").
struct PathCost {
  double bottleneck_Bps = 0;
  double latency_s = 0;
};

// One link of the cluster network. Topology is the one place that decides
// which links exist, their names, capacities and latencies; the SimGrid
// platform (sim/src/platform.cpp) and the collective cost model read them
// here.
struct TopologyLink {
  std::string name;          // e.g. "r0n1g3-nvl", "r0n1-nic", "r0-uplink"
  double bandwidth_Bps = 0;  // after the efficiency factors (link_capacity.hpp)
  double latency_s = 0;
};

class Topology {
 public:
  explicit Topology(const Cluster& cluster);
  ~Topology();
  Topology(const Topology&) = delete;
  Topology& operator=(const Topology&) = delete;

  const Cluster& cluster() const { return cluster_; }
  PathInfo path(GpuId a, GpuId b) const;
  PathCost path_cost(GpuId a, GpuId b) const;
  Locality locality(GpuId a, GpuId b) const;

  // The links themselves: a GPU's own NVLink/PCIe link to its node's switch,
  // a node's NICs (together) to its ToR, a rack's ToR uplink to the spine
  // (its latency includes the spine's).
  const TopologyLink& gpu_link(GpuId g) const;
  const TopologyLink& nic_link(NodeId n) const;
  const TopologyLink& rack_uplink(RackId r) const;
  // The points those links join, by the names the SimGrid platform gives
  // its hosts and routers: a GPU ("<node>g<i>"), a node's NIC ("<node>-nic"),
  // a rack's ToR ("<rack>-tor").
  const std::string& gpu_name(GpuId g) const;
  const std::string& nic_name(NodeId n) const;
  const std::string& tor_name(RackId r) const;

  // Uplink bandwidth of a rack (ToR -> spine), bytes/s after efficiency.
  double rack_uplink_Bps(RackId r) const;
  // A node's total NIC bandwidth, bytes/s after efficiency.
  double node_nic_Bps(NodeId n) const;

 private:
  struct Graph;
  // Calls visit(link) for each link from GPU a to GPU b, in path order.
  template <class Visit>
  void walk(GpuId a, GpuId b, const Visit& visit) const;
  const Cluster& cluster_;
  std::unique_ptr<Graph> graph_;
};

}  // namespace vnsim
