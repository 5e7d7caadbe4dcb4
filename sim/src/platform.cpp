#include "platform.hpp"

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

void build_rack(const Topology& topology, const GpuCatalog& catalog, RackId r, sg4::NetZone* dc,
                Platform& platform) {
  const Cluster& cluster = topology.cluster();
  const RackSpec& spec = cluster.spec().racks[r];
  require_unused_name(spec.name, "rack");
  sg4::NetZone* zone = sg4::create_star_zone(spec.name);
  zone->set_parent(dc);

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
  zone->seal();

  const TopologyLink& up = topology.rack_uplink(r);
  sg4::Link* uplink = split_duplex(dc, up.name, up.bandwidth_Bps, up.latency_s);
  dc->add_route(zone->get_netpoint(), nullptr, tor, nullptr, {sg4::LinkInRoute(uplink, Direction::UP)}, true);
}

}  // namespace

Platform build_platform(const Topology& topology, const GpuCatalog& gpu_catalog) {
  const Cluster& cluster = topology.cluster();
  Platform platform;
  platform.gpu_hosts.assign(cluster.gpu_count(), nullptr);
  require_unused_name("dc", "root zone");
  sg4::NetZone* dc = sg4::create_star_zone("dc");
  for (RackId r = 0; r < cluster.rack_count(); ++r) build_rack(topology, gpu_catalog, r, dc, platform);
  dc->seal();
  return platform;
}

}  // namespace vnsim::sim
