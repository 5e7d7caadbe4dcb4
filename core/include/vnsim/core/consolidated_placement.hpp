#pragma once
// First-fit placement that prefers consolidation: one node if any node has
// room (lowest node index first), else the one rack that holds the job on the
// fewest nodes (ties: lowest rack index), else the fewest racks. Shared by
// FIFO's placement and by the trace rule that defines a job's "alone" run
// time (placement on an empty cluster).
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "vnsim/core/cluster.hpp"

namespace vnsim {

// free_gpus_on_node(n) returns the free GPU ids of node n, ascending. Only
// GPUs whose type is in `allowed` are used (a job's type constraint, and the
// types whose memory holds it: see allowed_gpu_types in feasibility.hpp).
// Returns the chosen GPUs sorted ascending, or nullopt when `count` allowed
// GPUs are not free. Deterministic: ties break on the lowest index.
// free_count_on_node(n), when given, is the number of free GPUs of node n of
// any type (an upper bound on what free_gpus_on_node(n) returns): the same
// answer, found without listing the GPUs of nodes too full to matter.
std::optional<std::vector<GpuId>> find_consolidated_gpus(
    const Cluster& cluster, const std::function<std::vector<GpuId>(NodeId)>& free_gpus_on_node, int count,
    GpuTypeMask allowed, const std::function<int(NodeId)>& free_count_on_node = {});

// Convenience form: nullopt = any type.
std::optional<std::vector<GpuId>> find_consolidated_gpus(
    const Cluster& cluster, const std::function<std::vector<GpuId>(NodeId)>& free_gpus_on_node, int count,
    const std::optional<std::string>& gpu_type);

// The placement a job gets on an empty cluster.
std::optional<std::vector<GpuId>> consolidated_gpus_on_empty_cluster(const Cluster& cluster, int count,
                                                                     GpuTypeMask allowed);
std::optional<std::vector<GpuId>> consolidated_gpus_on_empty_cluster(
    const Cluster& cluster, int count, const std::optional<std::string>& gpu_type);

}  // namespace vnsim
