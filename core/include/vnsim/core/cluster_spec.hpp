#pragma once
// ClusterSpec: the physical cluster as racks -> nodes -> GPUs, with the links
// that join them. Parsed from JSON (docs/CLUSTER_SPEC.md); all values are
// stored in SI units (bytes/s, seconds) after parsing.
#include <map>
#include <string>
#include <vector>

namespace vnsim {

enum class IntraLinkKind { NVLink, PCIe };

struct IntraNodeLink {
  IntraLinkKind kind = IntraLinkKind::PCIe;
  double bandwidth_Bps = 0;  // per GPU, per direction, GPU <-> node switch (line rate)
  double latency_s = 0;      // one traversal of that link
  // Achievable / line rate of this link class (docs/CLUSTER_SPEC.md,
  // "Calibration"); multiplies the cluster-wide link_efficiency.
  double efficiency = 1.0;
};

struct NodeSpec {
  std::string name;
  std::vector<std::string> gpu_types;  // one entry per GPU, catalog names
  IntraNodeLink intra;
  double nic_bandwidth_Bps = 0;  // per NIC, per direction
  int nic_count = 1;             // node's NIC bandwidth = nic_bandwidth * nic_count
  double nic_latency_s = 0;
  double nic_efficiency = 1.0;  // achievable / line rate of the NICs, times link_efficiency
  bool spot = false;            // spot capacity: priced at the spot rate, revocable (docs/SPOT.md)
};

struct RackSpec {
  std::string name;
  std::vector<NodeSpec> nodes;
  double oversubscription = 1.0;  // uplink bw = sum(node NIC bw) / oversubscription
  double uplink_latency_s = 0;
};

// Costs of elastic resize and checkpoints (docs/CLUSTER_SPEC.md, "elasticity";
// defaults and their sources in docs/ELASTICITY.md).
struct ElasticitySpec {
  double storage_bandwidth_Bps = 1.25e9;                   // 10 Gbit/s per job, checkpoint save and restore
  double restart_delay_s = 30;                             // process restart (Pollux simulator's delta)
  double communicator_setup_s = 1;                         // rebuilding the collective communicator in place
  std::map<std::string, double> restart_delay_by_model_s;  // per-model overrides

  double restart_delay_for(const std::string& model) const {
    const auto it = restart_delay_by_model_s.find(model);
    return it == restart_delay_by_model_s.end() ? restart_delay_s : it->second;
  }
};

struct ClusterSpec {
  std::string name;
  std::vector<RackSpec> racks;
  double link_efficiency = 1.0;  // achievable / line rate, applied to every link
  double spine_latency_s = 0;    // extra latency of crossing the spine
  ElasticitySpec elasticity;

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
