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

namespace vnsim::sim {

class AloneEstimator {
 public:
  AloneEstimator(const Topology& topology, const GpuCatalog& gpus, const ModelCatalog& models)
      : topology_(topology), gpus_(gpus), models_(models) {}

  // Seconds, or -1 when the job has no placement on an empty cluster.
  double estimate_s(const JobSpec& job);

 private:
  const std::optional<std::vector<GpuId>>& placement(int count, const std::optional<std::string>& type);

  const Topology& topology_;
  const GpuCatalog& gpus_;
  const ModelCatalog& models_;
  // Placements depend only on (GPU count, type) on an empty cluster; caching
  // them keeps admission O(log n) on large clusters.
  std::map<std::pair<int, std::optional<std::string>>, std::optional<std::vector<GpuId>>> placements_;
  // Per-iteration time by (model, GPUs, type, virtual nodes, global batch):
  // traces repeat these shapes, and the ring term walks topology paths.
  using ShapeKey = std::tuple<std::string, int, std::optional<std::string>, int, int>;
  std::map<ShapeKey, double> iteration_s_;
};

}  // namespace vnsim::sim
