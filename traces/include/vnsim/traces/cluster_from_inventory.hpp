#pragma once
// Cluster specs built from the machine inventories that come with public
// traces (docs/TRACES.md, "Cluster specs from traces"): Philly's
// cluster_machine_list, PAI 2020's pai_machine_spec and the 2023 openb node
// list. Links and racks are not in any inventory: one documented rule
// (the philly-2017 preset's) fills them in.
#include <map>
#include <string>
#include <vector>

#include "vnsim/core/cluster_spec.hpp"
#include "vnsim/traces/trace.hpp"

namespace vnsim {

// "philly-machines", "pai-machines", "openb-nodes".
std::vector<std::string> inventory_format_names();
// By the header line; throws InputError naming the file when unrecognised.
std::string detect_inventory_format(const std::string& path);

struct InventoryOptions {
  std::string format;                          // "" = detect
  std::string name;                            // cluster name; "" = the file name without extension
  std::map<std::string, std::string> gpu_map;  // trace GPU name -> catalog name, before the built-in mapping
  int nodes_per_rack = 16;
};

struct InventoryCluster {
  std::string format;
  std::string json;                  // the spec, in the format of docs/CLUSTER_SPEC.md
  ClusterSpec spec;                  // json, parsed and validated
  std::vector<TraceIssue> left_out;  // rows that give no node (CPU-only, GPU type not in the catalog)
  std::map<std::string, long> gpus_by_type;
};

// Malformed rows (wrong column count, bad numbers, unknown Philly memory
// size, duplicate machine names) throw InputError("file:line: reason"): a
// cluster with silently missing machines would be wrong.
InventoryCluster cluster_from_inventory(const std::string& path, const InventoryOptions& options);

// "A=B,C=D" -> {A: B, C: D}; every B must be a GPU catalog name.
std::map<std::string, std::string> parse_gpu_map(const std::string& text);

}  // namespace vnsim
