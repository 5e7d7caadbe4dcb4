#pragma once
// VirtualFlow's heterogeneous solver as published (Or et al., "Virtual Flow:
// Decoupling Deep Learning Models from the Underlying Hardware", MLSys 2022):
// besides splitting the global batch over GPU types, it chooses how many GPUs
// n_g of each type to use, 0 <= n_g <= available_g, so that slow GPUs whose
// step plus the wider collective cost more than they save are left out.
//
// Exhaustive over every (n_1, ..., n_G) with at least one GPU: for each, the
// min-max split of hetero_split.hpp on those GPUs plus the collective the
// caller prices for them. The best total time wins; ties go to fewer GPUs,
// then to the earlier count vector in lexicographic order (deterministic).
#include <functional>
#include <vector>

#include "vnsim/core/hetero_split.hpp"

namespace vnsim {

// Collective time of a step that uses used[g] GPUs of group g (same order as
// the groups passed in). Called once per candidate count vector.
using CollectiveOf = std::function<double(const std::vector<int>& used)>;

struct HeteroChoice {
  std::vector<int> used;  // n_g per input group, <= its gpus
  // The split over the used GPUs. GpuShare::group, min_units_per_group and
  // max_units_per_group index the input groups (0 units where n_g = 0).
  HeteroSplit split;
};

// Virtual-node mode: V virtual nodes of B/V samples; a candidate is feasible
// when V >= its GPU count. Throws std::invalid_argument when none is, or on
// more than 1,000,000 candidates (the enumeration is for a job's few types).
HeteroChoice choose_virtual_nodes(const std::vector<GpuTypeGroup>& available, int virtual_nodes,
                                  int global_batch, const CollectiveOf& collective_s);

// Batch mode: integer local batches; a candidate is feasible when
// B >= its GPU count.
HeteroChoice choose_batch(const std::vector<GpuTypeGroup>& available, int global_batch,
                          const CollectiveOf& collective_s);

}  // namespace vnsim
