#pragma once
// A queued job's expected run time if it ran alone on an empty cluster with
// the consolidated placement (core/consolidated_placement.hpp) and the
// idle-network perf model: what policies see as estimated_remaining_s.
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "vnsim/core/cluster.hpp"
#include "vnsim/core/gpu_catalog.hpp"
#include "vnsim/core/job_spec.hpp"
#include "vnsim/core/model_catalog.hpp"
#include "vnsim/core/topology.hpp"

namespace vnsim {

class AloneEstimator {
 public:
  AloneEstimator(const Topology& topology, const GpuCatalog& gpus, const ModelCatalog& models)
      : topology_(topology), gpus_(gpus), models_(models) {}

  // Seconds, or -1 when the job has no placement on an empty cluster.
  // `allowed`: the GPU types it may use (allowed_gpu_types, feasibility.hpp).
  double estimate_s(const JobSpec& job, GpuTypeMask allowed);

 private:
  const std::optional<std::vector<GpuId>>& placement(int count, GpuTypeMask allowed);

  const Topology& topology_;
  const GpuCatalog& gpus_;
  const ModelCatalog& models_;
  // Placements depend only on (GPU count, allowed types) on an empty
  // cluster; caching them keeps admission O(log n) on large clusters.
  std::map<std::pair<int, GpuTypeMask>, std::optional<std::vector<GpuId>>> placements_;
  // Per-iteration time by (model, GPUs, allowed types, virtual nodes, global
  // batch, tp, pp, micro-batch size): traces repeat these shapes, and the
  // ring term walks topology paths.
  using ShapeKey = std::tuple<std::string, int, GpuTypeMask, int, int, int, int, int>;
  std::map<ShapeKey, double> iteration_s_;
};

}  // namespace vnsim
