// The cluster network as a Boost.Graph tree: GPU - node switch - NIC - ToR -
// spine. Its links (gpu_link, nic_link, rack_uplink) are the ones the SimGrid
// platform (sim/src/platform.cpp) is built from, so the platform's route from
// A to B is the same as path() here: A's links up to the common ancestor
// followed by B's links down.
#include "vnsim/core/topology.hpp"

#include <algorithm>
#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/breadth_first_search.hpp>
#include <limits>

#include "vnsim/core/link_capacity.hpp"

namespace vnsim {

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

PathInfo Topology::path(GpuId a, GpuId b) const {
  const Graph& gr = *graph_;
  Graph::V va = gr.gpu_vertex.at(a);
  Graph::V vb = gr.gpu_vertex.at(b);
  std::vector<Graph::E> up;
  std::vector<Graph::E> down;
  while (gr.depth[va] > gr.depth[vb]) {
    up.push_back(gr.edge_to_root[va]);
    va = gr.parent[va];
  }
  while (gr.depth[vb] > gr.depth[va]) {
    down.push_back(gr.edge_to_root[vb]);
    vb = gr.parent[vb];
  }
  while (va != vb) {
    up.push_back(gr.edge_to_root[va]);
    va = gr.parent[va];
    down.push_back(gr.edge_to_root[vb]);
    vb = gr.parent[vb];
  }
  std::reverse(down.begin(), down.end());
  up.insert(up.end(), down.begin(), down.end());

  PathInfo info;
  info.bottleneck_Bps = std::numeric_limits<double>::infinity();
  for (const Graph::E& e : up) {
    const Graph::Edge& link = gr.g[e];
    if (!Graph::is_link(link)) continue;
    info.links.push_back(link.name);
    info.bottleneck_Bps = std::min(info.bottleneck_Bps, link.bandwidth_Bps);
    info.latency_s += link.latency_s;
  }
  info.hops = static_cast<int>(info.links.size());
  return info;
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
