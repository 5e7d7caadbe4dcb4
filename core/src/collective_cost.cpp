// α-β pricing of collective schedules on a Topology, and NCCL's ring/tree
// choice (NCCL 2.28.9 src/graph/tuning.cc, ncclTopoGetAlgoTime).
#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <set>

#include "vnsim/core/collectives.hpp"
#include "vnsim/core/topology.hpp"

namespace vnsim {
namespace {

// One direction of one link; SimGrid's split-duplex links share bandwidth
// only among flows going the same way.
struct LinkUse {
  long long key;
  double bandwidth_Bps;
};

enum LinkKind : long long { kGpuLink = 0, kNic = 1, kUplink = 2 };

long long link_key(LinkKind kind, long long id, bool down) {
  return ((id * 3 + kind) * 2) + (down ? 1 : 0);
}

// The links of the route a -> b, as Topology::path and the SimGrid platform
// built from the same links route it: GPU link up, NIC up, rack uplink up,
// then the same on b's side going down.
std::vector<LinkUse> route(const Topology& topo, GpuId a, GpuId b) {
  const Cluster& c = topo.cluster();
  std::vector<LinkUse> links;
  if (a == b) return links;
  const GpuInfo& x = c.gpu(a);
  const GpuInfo& y = c.gpu(b);
  links.push_back({link_key(kGpuLink, a, false), topo.gpu_link(a).bandwidth_Bps});
  links.push_back({link_key(kGpuLink, b, true), topo.gpu_link(b).bandwidth_Bps});
  if (x.node == y.node) return links;
  links.push_back({link_key(kNic, x.node, false), topo.node_nic_Bps(x.node)});
  links.push_back({link_key(kNic, y.node, true), topo.node_nic_Bps(y.node)});
  if (x.rack == y.rack) return links;
  links.push_back({link_key(kUplink, x.rack, false), topo.rack_uplink_Bps(x.rack)});
  links.push_back({link_key(kUplink, y.rack, true), topo.rack_uplink_Bps(y.rack)});
  return links;
}

// NCCL 2.28.9 tuning constants, Simple protocol (µs): base latency and
// per-hop latencies (NCCL 2.28.9 src/graph/tuning.cc, baseLatencies and
// hwLatencies; unchanged for Hopper up to 2.30.7).
constexpr double kBaseLatencyUs = 8.4;
constexpr double kRingNvlinkUs = 3.4, kRingPcieUs = 5.7, kRingNetUs = 14.0;
constexpr double kTreeIntraUs = 4.0, kTreeNetUs = 14.0;
constexpr double kMultiNodeIntraFloorUs = 3.0;  // 3 x 1 µs net overhead (Intel)
constexpr double kRingPlateau = 1.4;            // multi-node ring all-reduce, sm80+

double ring_bottleneck_Bps(const Topology& topo, const std::vector<GpuId>& ranks) {
  double b = std::numeric_limits<double>::infinity();
  for (std::size_t i = 0; i < ranks.size(); ++i)
    b = std::min(b, topo.path_cost(ranks[i], ranks[(i + 1) % ranks.size()]).bottleneck_Bps);
  return b;
}

}  // namespace

double phase_time(const Topology& topo, const std::vector<GpuId>& ranks, const Phase& phase) {
  double latency = 0;
  std::map<long long, double> bytes_on;  // ordered: deterministic iteration
  std::map<long long, double> bandwidth_of;
  std::map<long long, double>
      first_start;  // a link starts carrying data once its earliest flow's latency is paid
  for (const Flow& f : phase.flows) {
    const GpuId a = ranks.at(f.src), b = ranks.at(f.dst);
    const double flow_latency = topo.path_cost(a, b).latency_s;
    latency = std::max(latency, flow_latency);
    for (const LinkUse& l : route(topo, a, b)) {
      bytes_on[l.key] += f.bytes;
      bandwidth_of[l.key] = l.bandwidth_Bps;
      auto [it, fresh] = first_start.emplace(l.key, flow_latency);
      if (!fresh) it->second = std::min(it->second, flow_latency);
    }
  }
  double t = latency;
  for (const auto& [key, bytes] : bytes_on)
    t = std::max(t, first_start.at(key) + bytes / bandwidth_of.at(key));
  return t;
}

// Broadcast and reduce chains are pipelines, not lock-step phases: chunk c
// leaves a rank as soon as it arrived and the previous chunk left, so the
// time is the chain's fill (sum of hop times) plus (chunks - 1) times the
// slowest hop.
double pipelined_chain_time(const Topology& topo, const CollectiveSchedule& s) {
  std::map<std::pair<int, int>, std::pair<double, long long>> hops;  // (src, dst) -> (chunk bytes, chunks)
  for (const Phase& p : s.phases)
    for (const Flow& f : p.flows) {
      auto& h = hops[{f.src, f.dst}];
      h.first = f.bytes;
      h.second += p.repeat;
    }
  double fill = 0, slowest = 0;
  long long chunks = 0;
  for (const auto& [pair, h] : hops) {
    const double d = p2p_time(topo, s.ranks.at(pair.first), s.ranks.at(pair.second), h.first);
    fill += d;
    slowest = std::max(slowest, d);
    chunks = std::max(chunks, h.second);
  }
  return hops.empty() ? 0 : fill + static_cast<double>(chunks - 1) * slowest;
}

double schedule_time(const Topology& topo, const CollectiveSchedule& schedule) {
  if (schedule.op == CollectiveOp::Broadcast || schedule.op == CollectiveOp::Reduce)
    return pipelined_chain_time(topo, schedule);
  double t = 0;
  for (const Phase& p : schedule.phases)
    t += static_cast<double>(p.repeat) * phase_time(topo, schedule.ranks, p);
  return t;
}

double p2p_time(const Topology& topo, GpuId src, GpuId dst, double bytes) {
  if (src == dst) return 0;
  const PathCost path = topo.path_cost(src, dst);
  return path.latency_s + bytes / path.bottleneck_Bps;
}

CollectiveAlgo choose_algorithm(const Topology& topo, CollectiveOp op, const std::vector<GpuId>& ranks,
                                double bytes) {
  if (op != CollectiveOp::AllReduce || ranks.size() < 2) return CollectiveAlgo::Ring;
  const Cluster& c = topo.cluster();
  std::set<NodeId> node_set;
  for (GpuId g : ranks) node_set.insert(c.gpu(g).node);
  const double n = static_cast<double>(ranks.size());
  const double nodes = static_cast<double>(node_set.size());
  const double per_node = n / nodes;
  const bool multi_node = nodes > 1;

  double intra = c.node_spec(c.gpu(ranks.front()).node).intra.kind == IntraLinkKind::NVLink ? kRingNvlinkUs
                                                                                            : kRingPcieUs;
  if (multi_node) intra = std::max(intra, kMultiNodeIntraFloorUs);
  const double steps = 2 * (n - 1);
  const double inter_steps = 2 * (nodes - 1);
  double ring_latency_us = kBaseLatencyUs + (steps - inter_steps) * intra + inter_steps * kRingNetUs;
  if (multi_node) ring_latency_us *= kRingPlateau;
  const double tree_latency_us =
      kBaseLatencyUs + 2 * ((per_node - 1) * kTreeIntraUs + std::log2(nodes) * kTreeNetUs);

  // Bandwidth terms are those of the algorithms vnsim runs (a ring, and a
  // non-pipelined binomial tree), so the choice matches what is simulated.
  const double b = ring_bottleneck_Bps(topo, ranks);
  const double ring_s = ring_latency_us * 1e-6 + steps / n * bytes / b;
  const double tree_s = tree_latency_us * 1e-6 + 2 * std::ceil(std::log2(n)) * bytes / b;
  return tree_s < ring_s ? CollectiveAlgo::Tree : CollectiveAlgo::Ring;
}

double collective_time(const Topology& topo, CollectiveOp op, CollectiveAlgo algo,
                       const std::vector<GpuId>& ranks, double bytes) {
  if (algo == CollectiveAlgo::Auto) algo = choose_algorithm(topo, op, ranks, bytes);
  return schedule_time(topo, build_schedule(topo.cluster(), op, algo, ranks, bytes));
}

}  // namespace vnsim
