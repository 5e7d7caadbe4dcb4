#pragma once
// The SimGrid platform of a vnsim::Cluster: dc (spine) -> rack -> node star
// zones (SimGrid's StarZone, one route per leaf),
// one host per GPU. Link names equal core Topology's ("<node>g<i>-nvl",
// "<node>-nic", "<rack>-uplink"; SimGrid appends _UP/_DOWN) so the two
// models can be cross-checked.
#include <simgrid/s4u/Host.hpp>
#include <string>
#include <vector>

#include "vnsim/core/cluster.hpp"
#include "vnsim/core/gpu_catalog.hpp"

namespace vnsim::sim {

struct Platform {
  std::vector<simgrid::s4u::Host*> gpu_hosts;  // indexed by GpuId
};

// Builds the platform into the current engine (create_configured_engine()
// first). Throws InputError when a GPU type is unknown or has no peak speed,
// or when two zones, hosts or routers would share a name.
Platform build_platform(const Cluster& cluster, const GpuCatalog& gpu_catalog);

// "r0n1g3" for GPU 3 of node "r0n1": the host name of a GPU.
std::string gpu_host_name(const Cluster& cluster, GpuId g);

}  // namespace vnsim::sim
