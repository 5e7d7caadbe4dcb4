// The phase schedules of the collective algorithms
// (the textbook α-β algorithms: Thakur, Rabenseifner & Gropp, IJHPCA 2005);
// collective_cost.cpp prices them and
// sim/src/collective_bench.cpp runs them on SimGrid.
#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <tuple>

#include "vnsim/core/collectives.hpp"
#include "vnsim/core/error.hpp"

namespace vnsim {
namespace {

// Pipelined chains (broadcast, reduce) cut the message into chunks of this
// size, at most kMaxChunks of them: enough to hide the pipeline's fill time
// at 8-64 ranks while keeping the number of simulated messages bounded.
constexpr double kChunkBytes = 1024.0 * 1024.0;
constexpr long long kMaxChunks = 256;

Phase ring_shift(int n, double bytes, long long repeat) {
  Phase p;
  p.repeat = repeat;
  for (int i = 0; i < n; ++i) p.flows.push_back({i, (i + 1) % n, bytes});
  return p;
}

void add_ring(CollectiveSchedule& s, int n, double bytes, long long repeat) {
  if (n > 1 && repeat > 0) s.phases.push_back(ring_shift(n, bytes, repeat));
}

// Binomial tree rooted at rank 0: reduce with distances 1, 2, 4, ... then
// broadcast with the distances in reverse. Topology ordering makes the short
// distances intra-node.
void add_binomial_allreduce(CollectiveSchedule& s, int n, double bytes) {
  std::vector<int> distances;
  for (int d = 1; d < n; d *= 2) distances.push_back(d);
  auto level = [&](int d, bool up) {
    Phase p;
    for (int r = 0; r + d < n; r += 2 * d)
      p.flows.push_back(up ? Flow{r + d, r, bytes} : Flow{r, r + d, bytes});
    s.phases.push_back(p);
  };
  for (int d : distances) level(d, true);
  for (auto it = distances.rbegin(); it != distances.rend(); ++it) level(*it, false);
}

// Chain 0 -> 1 -> ... -> n-1 (broadcast) or its reverse (reduce), pipelined:
// in phase j the rank at chain position r forwards chunk j - r.
void add_pipelined_chain(CollectiveSchedule& s, int n, double bytes, bool towards_root) {
  if (n < 2) return;
  const long long chunks =
      std::clamp<long long>(static_cast<long long>(std::ceil(bytes / kChunkBytes)), 1, kMaxChunks);
  const double chunk = bytes / static_cast<double>(chunks);
  const long long hops = n - 1;
  for (long long j = 0; j < hops + chunks - 1; ++j) {
    Phase p;
    for (long long r = std::max(0LL, j - chunks + 1); r <= std::min(j, hops - 1); ++r) {
      const int from = static_cast<int>(towards_root ? n - 1 - r : r);
      const int to = towards_root ? from - 1 : from + 1;
      p.flows.push_back({from, to, chunk});
    }
    s.phases.push_back(p);
  }
}

void add_all_to_all(CollectiveSchedule& s, int n, double bytes) {
  if (n < 2) return;
  Phase p;
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j)
      if (i != j) p.flows.push_back({i, j, bytes / n});
  s.phases.push_back(p);
}

// Reduce-scatter inside each node, ring all-reduce of S/g among the g GPUs of
// equal local position across nodes (g rings at once, sharing each NIC),
// all-gather inside each node.
void add_hierarchical(CollectiveSchedule& s, const Cluster& cluster, double bytes) {
  std::vector<NodeId> node_order;
  std::map<NodeId, std::vector<int>> members;  // node -> rank positions, in rank order
  for (std::size_t i = 0; i < s.ranks.size(); ++i) {
    const NodeId node = cluster.gpu(s.ranks[i]).node;
    if (!members.count(node)) node_order.push_back(node);
    members[node].push_back(static_cast<int>(i));
  }
  const auto g = members.at(node_order.front()).size();
  for (const auto& [node, ranks] : members)
    if (ranks.size() != g)
      throw InputError("hierarchical all-reduce needs the same number of GPUs on every node (node '" +
                       cluster.node(node).name + "' has " + std::to_string(ranks.size()) + ", expected " +
                       std::to_string(g) + ")");
  const int nodes = static_cast<int>(node_order.size());
  const double gd = static_cast<double>(g);

  Phase intra;
  intra.repeat = static_cast<long long>(g) - 1;
  for (NodeId node : node_order) {
    const auto& m = members.at(node);
    for (std::size_t i = 0; i < g; ++i) intra.flows.push_back({m[i], m[(i + 1) % g], bytes / gd});
  }
  Phase inter;
  inter.repeat = 2LL * (nodes - 1);
  for (std::size_t i = 0; i < g; ++i)
    for (int k = 0; k < nodes; ++k)
      inter.flows.push_back(
          {members.at(node_order[k])[i], members.at(node_order[(k + 1) % nodes])[i], bytes / gd / nodes});
  if (g > 1) s.phases.push_back(intra);
  if (nodes > 1) s.phases.push_back(inter);
  if (g > 1) s.phases.push_back(intra);
}

}  // namespace

std::vector<GpuId> topology_ring_order(const Cluster& cluster, std::vector<GpuId> gpus) {
  std::set<GpuId> seen;
  for (GpuId g : gpus) {
    if (g < 0 || g >= cluster.gpu_count())
      throw InputError("collective: GPU " + std::to_string(g) + " is not in cluster '" + cluster.spec().name +
                       "'");
    if (!seen.insert(g).second) throw InputError("collective: GPU " + std::to_string(g) + " is listed twice");
  }
  std::sort(gpus.begin(), gpus.end(), [&](GpuId a, GpuId b) {
    const GpuInfo& x = cluster.gpu(a);
    const GpuInfo& y = cluster.gpu(b);
    return std::tie(x.rack, x.node, x.local_index) < std::tie(y.rack, y.node, y.local_index);
  });
  return gpus;
}

CollectiveSchedule build_schedule(const Cluster& cluster, CollectiveOp op, CollectiveAlgo algo,
                                  const std::vector<GpuId>& ranks, double bytes) {
  if (ranks.empty()) throw InputError("collective " + to_string(op) + ": needs at least one rank");
  if (!(bytes >= 0)) throw InputError("collective " + to_string(op) + ": message size must be >= 0 bytes");
  if (algo == CollectiveAlgo::Auto)
    throw InputError("collective " + to_string(op) + ": resolve 'auto' with choose_algorithm first");
  const bool allreduce = op == CollectiveOp::AllReduce;
  if (!allreduce && algo != CollectiveAlgo::Ring)
    throw InputError("collective " + to_string(op) + " has no '" + to_string(algo) +
                     "' algorithm (only all-reduce has tree and hierarchical; use ring)");

  CollectiveSchedule s;
  s.op = op;
  s.algo = algo;
  s.ranks = ranks;
  const int n = static_cast<int>(ranks.size());
  const double nd = n;
  switch (op) {
    case CollectiveOp::AllReduce:
      if (algo == CollectiveAlgo::Ring) add_ring(s, n, bytes / nd, 2LL * (n - 1));
      if (algo == CollectiveAlgo::Tree) add_binomial_allreduce(s, n, bytes);
      if (algo == CollectiveAlgo::Hierarchical) add_hierarchical(s, cluster, bytes);
      break;
    case CollectiveOp::AllGather:
    case CollectiveOp::ReduceScatter:
      add_ring(s, n, bytes / nd, n - 1);
      break;
    case CollectiveOp::Broadcast:
      add_pipelined_chain(s, n, bytes, false);
      break;
    case CollectiveOp::Reduce:
      add_pipelined_chain(s, n, bytes, true);
      break;
    case CollectiveOp::AllToAll:
      add_all_to_all(s, n, bytes);
      break;
    case CollectiveOp::SendRecv:
      add_ring(s, n, bytes, 1);
      break;
    case CollectiveOp::PushPull:
      return build_push_pull_schedule({ranks.front()}, std::vector<GpuId>(ranks.begin() + 1, ranks.end()),
                                      bytes);
  }
  return s;
}

CollectiveSchedule build_push_pull_schedule(const std::vector<GpuId>& servers,
                                            const std::vector<GpuId>& workers, double bytes) {
  if (servers.empty() || workers.empty())
    throw InputError("parameter-server push/pull needs at least one server and one worker");
  if (bytes < 0) throw InputError("message size must be >= 0");
  CollectiveSchedule s;
  s.op = CollectiveOp::PushPull;
  s.algo = CollectiveAlgo::Ring;  // no algorithm choice: direct sends
  s.ranks = servers;
  s.ranks.insert(s.ranks.end(), workers.begin(), workers.end());
  const int n_servers = static_cast<int>(servers.size());
  const int n = static_cast<int>(s.ranks.size());
  const double shard = bytes / n_servers;
  Phase push, pull;
  for (int w = n_servers; w < n; ++w)
    for (int v = 0; v < n_servers; ++v) {
      push.flows.push_back(Flow{w, v, shard});
      pull.flows.push_back(Flow{v, w, shard});
    }
  s.phases.push_back(std::move(push));
  s.phases.push_back(std::move(pull));
  return s;
}

}  // namespace vnsim
