#pragma once
// ClusterSpec: the physical cluster as racks -> nodes -> GPUs, with the links
// that join them. Parsed from JSON (docs/CLUSTER_SPEC.md); all values are
// stored in SI units (bytes/s, seconds) after parsing.
#include <string>
#include <vector>

namespace vnsim {

enum class IntraLinkKind { NVLink, PCIe };

struct IntraNodeLink {
  IntraLinkKind kind = IntraLinkKind::PCIe;
  double bandwidth_Bps = 0;  // per GPU, per direction, GPU <-> node switch
  double latency_s = 0;      // one traversal of that link
};

struct NodeSpec {
  std::string name;
  std::vector<std::string> gpu_types;  // one entry per GPU, catalog names
  IntraNodeLink intra;
  double nic_bandwidth_Bps = 0;  // per NIC, per direction
  int nic_count = 1;             // node's NIC bandwidth = nic_bandwidth * nic_count
  double nic_latency_s = 0;
};

struct RackSpec {
  std::string name;
  std::vector<NodeSpec> nodes;
  double oversubscription = 1.0;  // uplink bw = sum(node NIC bw) / oversubscription
  double uplink_latency_s = 0;
};

struct ClusterSpec {
  std::string name;
  std::vector<RackSpec> racks;
  double link_efficiency = 1.0;  // achievable / line rate, applied to every link
  double spine_latency_s = 0;    // extra latency of crossing the spine

  // Stable global numbering: GPUs and nodes are numbered in rack, node, GPU
  // order. Cluster (cluster.hpp) precomputes the lookups.
};

// Parses and validates a spec. Throws InputError whose message names the
// source (file name or preset), the JSON path of the bad field, and why.
ClusterSpec parse_cluster_spec(const std::string& json_text, const std::string& source_name);
ClusterSpec load_cluster_spec_file(const std::string& path);

// "philly-2017", "dgx-h100", "testbed": specs embedded in the binary.
std::vector<std::string> cluster_preset_names();
// Preset name or path to a JSON file.
ClusterSpec load_cluster_spec(const std::string& preset_or_path);

}  // namespace vnsim
