#pragma once
// The SimGrid platform of a vnsim::Topology: dc (spine) -> rack -> node star
// zones (SimGrid's StarZone, one route per leaf),
// one host per GPU. Its links are core Topology's (gpu_link, nic_link,
// rack_uplink: "<node>g<i>-nvl", "<node>-nic", "<rack>-uplink", with their
// capacities and latencies; SimGrid appends _UP/_DOWN), so which links exist
// is decided in one place and the two models can be cross-checked.
#include <simgrid/s4u/Host.hpp>
#include <vector>

#include "vnsim/core/gpu_catalog.hpp"
#include "vnsim/core/topology.hpp"

namespace vnsim::sim {

struct Platform {
  std::vector<simgrid::s4u::Host*> gpu_hosts;  // indexed by GpuId
};

// Builds the platform of `topology`'s cluster into the current engine
// (create_configured_engine() first): one host per GPU, named
// Topology::gpu_name ("r0n1g3" for GPU 3 of node "r0n1"), and the
// Topology's links. Throws InputError when a GPU type is unknown or has no
// peak speed, or when two zones, hosts or routers would share a name.
Platform build_platform(const Topology& topology, const GpuCatalog& gpu_catalog);

}  // namespace vnsim::sim
