#include "vnsim/core/consolidated_placement.hpp"

#include <algorithm>
#include <numeric>
#include <stdexcept>

namespace vnsim {
namespace {

// The free, type-matching GPUs of every node, stored back to back: node n
// owns pool[start[n], start[n + 1]). One buffer instead of one per node,
// because this runs for every placement attempt of a replay.
struct FreePool {
  std::vector<GpuId> pool;
  std::vector<int> start;
  int free_on(NodeId n) const { return start[n + 1] - start[n]; }
};

// Nodes by most free GPUs first, ties by lower index: the fewest nodes that
// reach `count`.
void sort_most_free_first(std::vector<NodeId>& nodes, const FreePool& free) {
  std::stable_sort(nodes.begin(), nodes.end(),
                   [&](NodeId a, NodeId b) { return free.free_on(a) > free.free_on(b); });
}

// Takes GPUs node by node in the given order, lowest GPU ids first inside the
// last, partially used node.
std::vector<GpuId> take(const std::vector<NodeId>& order, const FreePool& free, int count) {
  std::vector<GpuId> chosen;
  chosen.reserve(count);
  for (NodeId n : order) {
    const int want = std::min(free.free_on(n), count - static_cast<int>(chosen.size()));
    chosen.insert(chosen.end(), free.pool.begin() + free.start[n], free.pool.begin() + free.start[n] + want);
    if (static_cast<int>(chosen.size()) == count) break;
  }
  std::sort(chosen.begin(), chosen.end());
  return chosen;
}

// How many nodes, taken most-free first, hold `count` GPUs.
int nodes_needed(const std::vector<NodeId>& sorted_nodes, const FreePool& free, int count) {
  int got = 0, used = 0;
  for (NodeId n : sorted_nodes) {
    got += free.free_on(n);
    ++used;
    if (got >= count) break;
  }
  return used;
}

}  // namespace

std::optional<std::vector<GpuId>> find_consolidated_gpus(
    const Cluster& cluster, const std::function<std::vector<GpuId>(NodeId)>& free_gpus_on_node, int count,
    GpuTypeMask allowed, const std::function<int(NodeId)>& free_count_on_node) {
  if (count <= 0) throw std::invalid_argument("find_consolidated_gpus: count must be positive");
  if (count > cluster.gpu_count()) return std::nullopt;
  const int node_count = cluster.node_count();
  const auto allowed_free_on = [&](NodeId n, std::vector<GpuId>& out) {
    const GpuTypeMask node_types = cluster.node_type_mask(n);
    if ((node_types & allowed) == 0) return;  // skip the callback's allocation
    if (free_count_on_node && free_count_on_node(n) == 0) return;
    const bool filter = (node_types & ~allowed) != 0;
    for (GpuId g : free_gpus_on_node(n))
      if (!filter || (cluster.gpu_type_bit(g) & allowed) != 0) out.push_back(g);
  };
  const auto first_count_of = [&](const std::vector<GpuId>& gpus, std::size_t from) {
    std::vector<GpuId> chosen(gpus.begin() + static_cast<std::ptrdiff_t>(from),
                              gpus.begin() + static_cast<std::ptrdiff_t>(from) + count);
    std::sort(chosen.begin(), chosen.end());
    return chosen;
  };
  FreePool free;
  // (1) The first node that fits wins. With counts, nodes with fewer free
  // GPUs than the job are passed over without listing their GPUs, so a
  // one-node job costs a scan of integers, not of every node's GPU list.
  if (free_count_on_node) {
    std::vector<GpuId> gpus;
    for (NodeId n = 0; n < node_count; ++n) {
      if (free_count_on_node(n) < count) continue;
      gpus.clear();
      allowed_free_on(n, gpus);
      if (static_cast<int>(gpus.size()) >= count) return first_count_of(gpus, 0);
    }
  }
  // Otherwise (or without counts) gather every node's free GPUs for steps
  // (2) and (3), stopping early at a node that fits when (1) did not run.
  free.pool.reserve(cluster.gpu_count());
  free.start.resize(node_count + 1);
  for (NodeId n = 0; n < node_count; ++n) {
    free.start[n] = static_cast<int>(free.pool.size());
    allowed_free_on(n, free.pool);
    if (static_cast<int>(free.pool.size()) - free.start[n] >= count)
      return first_count_of(free.pool, static_cast<std::size_t>(free.start[n]));
  }
  free.start[node_count] = static_cast<int>(free.pool.size());
  if (static_cast<int>(free.pool.size()) < count) return std::nullopt;

  std::vector<std::vector<NodeId>> rack_nodes(cluster.rack_count());
  std::vector<int> rack_free(cluster.rack_count(), 0);
  for (NodeId n = 0; n < node_count; ++n) {
    if (free.free_on(n) == 0) continue;
    rack_nodes[cluster.node(n).rack].push_back(n);
    rack_free[cluster.node(n).rack] += free.free_on(n);
  }

  // (2) The rack that holds the job alone on the fewest nodes: fewer NICs
  // in the ring, so less exposure to other jobs' traffic.
  RackId best_rack = -1;
  int best_nodes = 0;
  for (RackId r = 0; r < cluster.rack_count(); ++r) {
    if (rack_free[r] < count) continue;
    sort_most_free_first(rack_nodes[r], free);
    const int needed = nodes_needed(rack_nodes[r], free, count);
    if (best_rack < 0 || needed < best_nodes) {
      best_rack = r;
      best_nodes = needed;
    }
  }
  if (best_rack >= 0) return take(rack_nodes[best_rack], free, count);

  // (3) Across racks, fullest-free racks first.
  std::vector<RackId> racks(cluster.rack_count());
  std::iota(racks.begin(), racks.end(), 0);
  std::stable_sort(racks.begin(), racks.end(),
                   [&](RackId a, RackId b) { return rack_free[a] > rack_free[b]; });
  std::vector<NodeId> order;
  for (RackId r : racks) {
    sort_most_free_first(rack_nodes[r], free);
    order.insert(order.end(), rack_nodes[r].begin(), rack_nodes[r].end());
  }
  return take(order, free, count);
}

std::optional<std::vector<GpuId>> find_consolidated_gpus(
    const Cluster& cluster, const std::function<std::vector<GpuId>(NodeId)>& free_gpus_on_node, int count,
    const std::optional<std::string>& gpu_type) {
  return find_consolidated_gpus(cluster, free_gpus_on_node, count, cluster.type_mask(gpu_type));
}

std::optional<std::vector<GpuId>> consolidated_gpus_on_empty_cluster(
    const Cluster& cluster, int count, const std::optional<std::string>& gpu_type) {
  return consolidated_gpus_on_empty_cluster(cluster, count, cluster.type_mask(gpu_type));
}

std::optional<std::vector<GpuId>> consolidated_gpus_on_empty_cluster(const Cluster& cluster, int count,
                                                                     GpuTypeMask allowed) {
  return find_consolidated_gpus(
      cluster,
      [&cluster](NodeId n) {
        const NodeInfo& node = cluster.node(n);
        std::vector<GpuId> all(node.gpu_count);
        std::iota(all.begin(), all.end(), node.first_gpu);
        return all;
      },
      count, allowed);
}

}  // namespace vnsim
