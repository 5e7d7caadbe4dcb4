#pragma once
// Heterogeneous jobs in the perf model: a placement whose GPUs span several
// types gets its virtual nodes from the split solver (hetero_split.hpp), with
// per-type speeds from the GPU catalog, instead of an even spread.
#include <vector>

#include "vnsim/core/cluster.hpp"
#include "vnsim/core/gpu_catalog.hpp"
#include "vnsim/core/hetero_split.hpp"
#include "vnsim/core/model_catalog.hpp"
#include "vnsim/core/perf_model.hpp"

namespace vnsim {

bool spans_gpu_types(const Cluster& cluster, const std::vector<GpuId>& gpus);

// One group per GPU type, in order of first appearance in `gpus`; micro-batch
// time = (alpha_c + beta_c m) / speed_for(model) as in iteration_time().
std::vector<GpuTypeGroup> catalog_groups(const Cluster& cluster, const GpuCatalog& catalog,
                                         const ModelParams& model, const std::vector<GpuId>& gpus);

// `gpus` in their given order, each with the virtual-node count the solver
// gives it (split_virtual_nodes; V >= gpus.size()). Throws
// std::invalid_argument as the solver does.
Placement split_placement_by_type(const Cluster& cluster, const GpuCatalog& catalog, const ModelParams& model,
                                  std::vector<GpuId> gpus, int virtual_nodes, int global_batch);

}  // namespace vnsim
