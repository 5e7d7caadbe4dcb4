#include "platform.hpp"

#include <simgrid/kernel/routing/NetZoneImpl.hpp>
#include <simgrid/s4u/Engine.hpp>
#include <simgrid/s4u/Link.hpp>
#include <simgrid/s4u/NetZone.hpp>

#include "gpu_energy_meter.hpp"
#include "vnsim/core/error.hpp"
#include "vnsim/core/topology.hpp"

namespace sg4 = simgrid::s4u;

namespace vnsim::sim {
namespace {

using Direction = sg4::LinkInRoute::Direction;

// SimGrid would abort on a duplicate netpoint; a spec with clashing names is
// an input error, so say which name clashes instead.
void require_unused_name(const std::string& name, const std::string& what) {
  if (sg4::Engine::get_instance()->netpoint_by_name_or_null(name) != nullptr)
    throw InputError("cluster spec: " + what + " name '" + name +
                     "' clashes with another rack, node or GPU name (names must be unique)");
}

sg4::Link* split_duplex(sg4::NetZone* zone, const std::string& name, double bandwidth_Bps, double latency_s) {
  sg4::Link* link = zone->create_split_duplex_link(name, bandwidth_Bps);
  link->set_latency(latency_s);
  return link->seal();
}

double host_speed(const GpuCatalog& catalog, const std::string& type) {
  const GpuType& t = catalog.at(type);
  if (!(t.peak_flops > 0))
    throw InputError("GPU catalog: type '" + type +
                     "' has no positive peak_flops, needed as the simulated speed");
  return t.peak_flops;
}

// Node zone: centre = the node's NVSwitch/PCIe switch; each GPU hangs on its
// own link; the NIC router is the zone's gateway. Names, capacities and
// latencies are the Topology's; only the zones are laid out here. Routers sit in leaf zones
// at the hosts' depth: SimGrid 3.32 resolves a gateway in an ancestor zone
// wrongly (route_to throws out_of_range; fixed upstream only by PR #401).
sg4::NetZone* build_node(const Topology& topology, const GpuCatalog& catalog, NodeId n,
                         sg4::NetZone* rack_zone, Platform& platform) {
  const Cluster& cluster = topology.cluster();
  const NodeInfo& info = cluster.node(n);

  require_unused_name(info.name, "node");
  sg4::NetZone* zone = sg4::create_star_zone(info.name);
  zone->set_parent(rack_zone);
  for (GpuId g = info.first_gpu; g < info.first_gpu + info.gpu_count; ++g) {
    const std::string& host_name = topology.gpu_name(g);
    require_unused_name(host_name, "GPU");
    const std::string& type = cluster.gpu(g).type;
    // One pstate per GpuPowerState, all at the GPU's speed; the energy
    // plugin (if enabled) reads the wattage property when the host is sealed.
    sg4::Host* host =
        zone->create_host(host_name, std::vector<double>(kGpuPowerStateCount, host_speed(catalog, type)));
    host->set_property("wattage_per_state", gpu_wattage_per_state(catalog.at(type)));
    host->set_property("wattage_off", "0");
    host->seal();
    const TopologyLink& nvl = topology.gpu_link(g);
    sg4::Link* link = split_duplex(zone, nvl.name, nvl.bandwidth_Bps, nvl.latency_s);
    zone->add_route(host->get_netpoint(), nullptr, nullptr, nullptr, {sg4::LinkInRoute(link, Direction::UP)},
                    true);
    platform.gpu_hosts[g] = host;
  }
  const std::string& nic_name = topology.nic_name(n);
  require_unused_name(nic_name, "NIC router");
  auto* nic_router = zone->create_router(nic_name);
  zone->add_route(nic_router, nullptr, nullptr, nullptr, {}, true);
  zone->seal();

  const TopologyLink& nic_link = topology.nic_link(n);
  sg4::Link* nic = split_duplex(rack_zone, nic_link.name, nic_link.bandwidth_Bps, nic_link.latency_s);
  rack_zone->add_route(zone->get_netpoint(), nullptr, nic_router, nullptr,
                       {sg4::LinkInRoute(nic, Direction::UP)}, true);
  return zone;
}

// A zone that takes its models from `model_source` but is not (yet) in
// the platform's tree. SimGrid 3.32 checks every new link's and host's name
// against every zone reachable from the root, so filling the racks while
// they hang under the root made building a platform quadratic in its node
// zones (4.3 s for 10,000 GPUs, 22 s for 20,000); racks filled apart and
// hung under the root afterwards are not walked (10,000 GPUs in 0.39 s,
// 20,000 in 0.49 s; docs/PERFORMANCE.md, "Building the platform").
// set_parent would copy the same models from the root. Names are checked
// here first (require_unused_name, against every netpoint, attached or
// not), and every link's name is a netpoint's name with a suffix of its
// kind (Topology: "-nvl", "-nic", "-uplink"), so links cannot clash either.
sg4::NetZone* detached_zone(const std::string& name, const sg4::NetZone* model_source) {
  sg4::NetZone* zone = sg4::create_star_zone(name);
  auto* impl = zone->get_impl();
  const auto* from = model_source->get_impl();
  impl->set_network_model(from->get_network_model());
  impl->set_cpu_pm_model(from->get_cpu_pm_model());
  impl->set_cpu_vm_model(from->get_cpu_vm_model());
  impl->set_disk_model(from->get_disk_model());
  impl->set_host_model(from->get_host_model());
  return zone;
}

struct DetachedRack {
  sg4::NetZone* zone;
  simgrid::kernel::routing::NetPoint* tor;
  sg4::Link* uplink;  // declared in `dc`, routed once the rack is attached
};

// Builds rack r's zone apart from the tree (detached_zone) and its uplink in
// `dc`, in the order the platform was always built (the same resources in
// the same order); attach_rack hangs it under `dc`.
DetachedRack build_rack(const Topology& topology, const GpuCatalog& catalog, RackId r, sg4::NetZone* dc,
                        Platform& platform) {
  const Cluster& cluster = topology.cluster();
  const RackSpec& spec = cluster.spec().racks[r];
  require_unused_name(spec.name, "rack");
  sg4::NetZone* zone = detached_zone(spec.name, dc);

  require_unused_name(spec.name + "-sw", "ToR zone");
  sg4::NetZone* sw = sg4::create_star_zone(spec.name + "-sw");
  sw->set_parent(zone);
  require_unused_name(topology.tor_name(r), "ToR router");
  auto* tor = sw->create_router(topology.tor_name(r));
  sw->add_route(tor, nullptr, nullptr, nullptr, {}, true);
  sw->seal();
  zone->add_route(sw->get_netpoint(), nullptr, tor, nullptr, {}, true);

  for (const NodeInfo& node : cluster.nodes())
    if (node.rack == r) build_node(topology, catalog, node.id, zone, platform);
  const TopologyLink& up = topology.rack_uplink(r);
  return DetachedRack{zone, tor, split_duplex(dc, up.name, up.bandwidth_Bps, up.latency_s)};
}

void attach_rack(const DetachedRack& rack, sg4::NetZone* dc) {
  rack.zone->set_parent(dc);
  rack.zone->seal();
  dc->add_route(rack.zone->get_netpoint(), nullptr, rack.tor, nullptr,
                {sg4::LinkInRoute(rack.uplink, Direction::UP)}, true);
}

}  // namespace

Platform build_platform(const Topology& topology, const GpuCatalog& gpu_catalog) {
  const Cluster& cluster = topology.cluster();
  Platform platform;
  platform.gpu_hosts.assign(cluster.gpu_count(), nullptr);
  require_unused_name("dc", "root zone");
  sg4::NetZone* dc = sg4::create_star_zone("dc");
  std::vector<DetachedRack> racks;
  racks.reserve(cluster.rack_count());
  for (RackId r = 0; r < cluster.rack_count(); ++r)
    racks.push_back(build_rack(topology, gpu_catalog, r, dc, platform));
  for (const DetachedRack& rack : racks) attach_rack(rack, dc);
  dc->seal();
  return platform;
}

}  // namespace vnsim::sim
