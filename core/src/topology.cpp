// The cluster network as a Boost.Graph tree: GPU - node switch - NIC - ToR -
// spine. Its links (gpu_link, nic_link, rack_uplink) are the ones the SimGrid
// platform (sim/src/platform.cpp) is built from, so the platform's route from
// A to B is the same as path() here: A's links up to the common ancestor
// followed by B's links down.
#include "vnsim/core/topology.hpp"

#include <algorithm>
#include <array>
#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/breadth_first_search.hpp>
#include <limits>
#include <stdexcept>

#include "vnsim/core/link_capacity.hpp"

namespace vnsim {
namespace {

// The tree is GPU - switch - NIC - ToR - spine: no vertex is deeper than
// this, so a path's walk down to its end fits a fixed array (checked at
// construction).
constexpr int kMaxDepth = 8;

}  // namespace

struct Topology::Graph {
  struct Vertex {
    std::string name;
  };
  // A link, or (unnamed) the switch-NIC attachment, which is no link.
  using Edge = TopologyLink;
  static bool is_link(const Edge& e) { return !e.name.empty(); }
  using G = boost::adjacency_list<boost::vecS, boost::vecS, boost::undirectedS, Vertex, Edge>;
  using V = G::vertex_descriptor;
  using E = G::edge_descriptor;

  G g;
  std::vector<V> gpu_vertex;   // by GpuId
  std::vector<E> gpu_edge;     // by GpuId
  std::vector<V> nic_vertex;   // by NodeId
  std::vector<E> nic_edge;     // by NodeId
  std::vector<V> tor_vertex;   // by RackId
  std::vector<E> uplink_edge;  // by RackId
  // The network is a tree rooted at the spine; a breadth-first search from
  // the spine gives each vertex its edge towards the root and its depth, so a
  // path is two walks up to the common ancestor: O(depth), no search per query.
  std::vector<E> edge_to_root;
  std::vector<V> parent;
  std::vector<int> depth;

  // Records the BFS tree: tree edges are exactly the links towards the spine.
  class TreeRecorder : public boost::default_bfs_visitor {
   public:
    explicit TreeRecorder(Graph& graph) : graph_(graph) {}
    void tree_edge(E e, const G& g) const {
      const V from = boost::source(e, g);
      const V to = boost::target(e, g);
      graph_.edge_to_root[to] = e;
      graph_.parent[to] = from;
      graph_.depth[to] = graph_.depth[from] + 1;
    }

   private:
    Graph& graph_;
  };

  V add_vertex(std::string name) { return boost::add_vertex(Vertex{std::move(name)}, g); }
  E add_edge(V a, V b, Edge e) { return boost::add_edge(a, b, std::move(e), g).first; }
};

Topology::Topology(const Cluster& cluster) : cluster_(cluster), graph_(std::make_unique<Graph>()) {
  Graph& gr = *graph_;
  const ClusterSpec& spec = cluster.spec();
  const Graph::V spine = gr.add_vertex("spine");
  gr.gpu_vertex.resize(cluster.gpu_count());
  gr.gpu_edge.resize(cluster.gpu_count());
  gr.nic_vertex.resize(cluster.node_count());
  gr.nic_edge.resize(cluster.node_count());

  for (RackId r = 0; r < cluster.rack_count(); ++r) {
    const RackSpec& rack = spec.racks[r];
    const Graph::V tor = gr.add_vertex(rack.name + "-tor");
    gr.tor_vertex.push_back(tor);
    for (const NodeInfo& node : cluster.nodes()) {
      if (node.rack != r) continue;
      const NodeSpec& ns = cluster.node_spec(node.id);
      const Graph::V sw = gr.add_vertex(node.name + "-switch");
      for (int i = 0; i < node.gpu_count; ++i) {
        const std::string gpu_name = node.name + "g" + std::to_string(i);
        const Graph::V gv = gr.add_vertex(gpu_name);
        gr.gpu_vertex[node.first_gpu + i] = gv;
        gr.gpu_edge[node.first_gpu + i] = gr.add_edge(
            gv, sw,
            {gpu_name + "-nvl", vnsim::gpu_link_Bps(cluster, node.first_gpu + i), ns.intra.latency_s});
      }
      const Graph::V nic = gr.add_vertex(node.name + "-nic");
      gr.nic_vertex[node.id] = nic;
      gr.add_edge(sw, nic, {"", std::numeric_limits<double>::infinity(), 0});
      gr.nic_edge[node.id] = gr.add_edge(
          nic, tor, {node.name + "-nic", vnsim::node_nic_Bps(cluster, node.id), ns.nic_latency_s});
    }
    gr.uplink_edge.push_back(gr.add_edge(tor, spine,
                                         {rack.name + "-uplink", vnsim::rack_uplink_Bps(cluster, r),
                                          rack.uplink_latency_s + spec.spine_latency_s}));
  }

  const auto n = boost::num_vertices(gr.g);
  gr.edge_to_root.resize(n);
  gr.parent.assign(n, spine);
  gr.depth.assign(n, 0);
  boost::breadth_first_search(gr.g, spine, boost::visitor(Graph::TreeRecorder(gr)));
  if (*std::max_element(gr.depth.begin(), gr.depth.end()) > kMaxDepth)
    throw std::logic_error("topology: a tree deeper than kMaxDepth");
}

Topology::~Topology() = default;

Locality Topology::locality(GpuId a, GpuId b) const {
  const GpuInfo& ga = cluster_.gpu(a);
  const GpuInfo& gb = cluster_.gpu(b);
  if (a == b) return Locality::SameGpu;
  if (ga.node == gb.node) return Locality::SameNode;
  if (ga.rack == gb.rack) return Locality::SameRack;
  return Locality::CrossRack;
}

template <class Visit>
void Topology::walk(GpuId a, GpuId b, const Visit& visit) const {
  const Graph& gr = *graph_;
  Graph::V va = gr.gpu_vertex.at(a);
  Graph::V vb = gr.gpu_vertex.at(b);
  // Up from a to the common ancestor, visited as met; down from it to b,
  // kept (met from b upward) and visited in reverse.
  std::array<Graph::E, kMaxDepth> down;
  std::size_t n_down = 0;
  const auto up = [&](Graph::V& v) {
    const Graph::Edge& link = gr.g[gr.edge_to_root[v]];
    if (Graph::is_link(link)) visit(link);
    v = gr.parent[v];
  };
  while (gr.depth[va] > gr.depth[vb]) up(va);
  while (gr.depth[vb] > gr.depth[va]) {
    down[n_down++] = gr.edge_to_root[vb];
    vb = gr.parent[vb];
  }
  while (va != vb) {
    up(va);
    down[n_down++] = gr.edge_to_root[vb];
    vb = gr.parent[vb];
  }
  while (n_down > 0) {
    const Graph::Edge& link = gr.g[down[--n_down]];
    if (Graph::is_link(link)) visit(link);
  }
}

PathInfo Topology::path(GpuId a, GpuId b) const {
  PathInfo info;
  info.bottleneck_Bps = std::numeric_limits<double>::infinity();
  walk(a, b, [&info](const TopologyLink& link) {
    info.links.push_back(link.name);
    info.bottleneck_Bps = std::min(info.bottleneck_Bps, link.bandwidth_Bps);
    info.latency_s += link.latency_s;
  });
  info.hops = static_cast<int>(info.links.size());
  return info;
}

PathCost Topology::path_cost(GpuId a, GpuId b) const {
  PathCost cost;
  cost.bottleneck_Bps = std::numeric_limits<double>::infinity();
  walk(a, b, [&cost](const TopologyLink& link) {
    cost.bottleneck_Bps = std::min(cost.bottleneck_Bps, link.bandwidth_Bps);
    cost.latency_s += link.latency_s;
  });
  return cost;
}

double Topology::rack_uplink_Bps(RackId r) const {
  return rack_uplink(r).bandwidth_Bps;
}

double Topology::node_nic_Bps(NodeId n) const {
  return nic_link(n).bandwidth_Bps;
}

const TopologyLink& Topology::gpu_link(GpuId g) const {
  return graph_->g[graph_->gpu_edge.at(g)];
}

const TopologyLink& Topology::nic_link(NodeId n) const {
  return graph_->g[graph_->nic_edge.at(n)];
}

const TopologyLink& Topology::rack_uplink(RackId r) const {
  return graph_->g[graph_->uplink_edge.at(r)];
}

const std::string& Topology::gpu_name(GpuId g) const {
  return graph_->g[graph_->gpu_vertex.at(g)].name;
}

const std::string& Topology::nic_name(NodeId n) const {
  return graph_->g[graph_->nic_vertex.at(n)].name;
}

const std::string& Topology::tor_name(RackId r) const {
  return graph_->g[graph_->tor_vertex.at(r)].name;
}

}  // namespace vnsim
