#include "platform.hpp"

#include <simgrid/s4u/Engine.hpp>
#include <simgrid/s4u/Link.hpp>
#include <simgrid/s4u/NetZone.hpp>

#include "gpu_energy_meter.hpp"
#include "vnsim/core/error.hpp"
#include "vnsim/core/link_capacity.hpp"

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
// own link; the NIC router is the zone's gateway. Routers sit in leaf zones
// at the hosts' depth: SimGrid 3.32 resolves a gateway in an ancestor zone
// wrongly (route_to throws out_of_range; fixed upstream only by PR #401).
sg4::NetZone* build_node(const Cluster& cluster, const GpuCatalog& catalog, NodeId n, sg4::NetZone* rack_zone,
                         Platform& platform) {
  const NodeInfo& info = cluster.node(n);
  const NodeSpec& spec = cluster.node_spec(n);

  require_unused_name(info.name, "node");
  sg4::NetZone* zone = sg4::create_star_zone(info.name);
  zone->set_parent(rack_zone);
  for (GpuId g = info.first_gpu; g < info.first_gpu + info.gpu_count; ++g) {
    const std::string host_name = gpu_host_name(cluster, g);
    require_unused_name(host_name, "GPU");
    const std::string& type = cluster.gpu(g).type;
    // One pstate per GpuPowerState, all at the GPU's speed; the energy
    // plugin (if enabled) reads the wattage property when the host is sealed.
    sg4::Host* host =
        zone->create_host(host_name, std::vector<double>(kGpuPowerStateCount, host_speed(catalog, type)));
    host->set_property("wattage_per_state", gpu_wattage_per_state(catalog.at(type)));
    host->set_property("wattage_off", "0");
    host->seal();
    sg4::Link* link = split_duplex(zone, host_name + "-nvl", gpu_link_Bps(cluster, g), spec.intra.latency_s);
    zone->add_route(host->get_netpoint(), nullptr, nullptr, nullptr, {sg4::LinkInRoute(link, Direction::UP)},
                    true);
    platform.gpu_hosts[g] = host;
  }
  const std::string nic_name = info.name + "-nic";
  require_unused_name(nic_name, "NIC router");
  auto* nic_router = zone->create_router(nic_name);
  zone->add_route(nic_router, nullptr, nullptr, nullptr, {}, true);
  zone->seal();

  sg4::Link* nic = split_duplex(rack_zone, nic_name, node_nic_Bps(cluster, n), spec.nic_latency_s);
  rack_zone->add_route(zone->get_netpoint(), nullptr, nic_router, nullptr,
                       {sg4::LinkInRoute(nic, Direction::UP)}, true);
  return zone;
}

void build_rack(const Cluster& cluster, const GpuCatalog& catalog, RackId r, sg4::NetZone* dc,
                Platform& platform) {
  const RackSpec& spec = cluster.spec().racks[r];
  require_unused_name(spec.name, "rack");
  sg4::NetZone* zone = sg4::create_star_zone(spec.name);
  zone->set_parent(dc);

  require_unused_name(spec.name + "-sw", "ToR zone");
  sg4::NetZone* sw = sg4::create_star_zone(spec.name + "-sw");
  sw->set_parent(zone);
  require_unused_name(spec.name + "-tor", "ToR router");
  auto* tor = sw->create_router(spec.name + "-tor");
  sw->add_route(tor, nullptr, nullptr, nullptr, {}, true);
  sw->seal();
  zone->add_route(sw->get_netpoint(), nullptr, tor, nullptr, {}, true);

  for (const NodeInfo& node : cluster.nodes())
    if (node.rack == r) build_node(cluster, catalog, node.id, zone, platform);
  zone->seal();

  sg4::Link* uplink = split_duplex(dc, spec.name + "-uplink", rack_uplink_Bps(cluster, r),
                                   spec.uplink_latency_s + cluster.spec().spine_latency_s);
  dc->add_route(zone->get_netpoint(), nullptr, tor, nullptr, {sg4::LinkInRoute(uplink, Direction::UP)}, true);
}

}  // namespace

std::string gpu_host_name(const Cluster& cluster, GpuId g) {
  const GpuInfo& gpu = cluster.gpu(g);
  return cluster.node(gpu.node).name + "g" + std::to_string(gpu.local_index);
}

Platform build_platform(const Cluster& cluster, const GpuCatalog& gpu_catalog) {
  Platform platform;
  platform.gpu_hosts.assign(cluster.gpu_count(), nullptr);
  require_unused_name("dc", "root zone");
  sg4::NetZone* dc = sg4::create_star_zone("dc");
  for (RackId r = 0; r < cluster.rack_count(); ++r) build_rack(cluster, gpu_catalog, r, dc, platform);
  dc->seal();
  return platform;
}

}  // namespace vnsim::sim
