#pragma once
// Per-GPU-type throughput of a job, for the heterogeneity-aware policies
// (Gavel's T matrix): iterations/s of the job at its requested GPU count,
// consolidated on GPUs of one type of an empty cluster, from the idle-network
// perf model (core/perf_model.hpp). Cached by job shape, since traces repeat
// the same (model, GPUs, virtual nodes, batch) many times.
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "vnsim/core/gpu_catalog.hpp"
#include "vnsim/core/model_catalog.hpp"
#include "vnsim/policies/policy.hpp"

namespace vnsim {

class TypeThroughput {
 public:
  // The catalogs the replay command uses (GpuCatalog/ModelCatalog::builtin()).
  TypeThroughput(const GpuCatalog& gpus, const ModelCatalog& models) : gpus_(gpus), models_(models) {}

  // Iterations/s of `job` on cluster type `type` (index into gpu_types()),
  // or 0 when `allowed` excludes the type or the type has too few GPUs.
  double steps_per_s(const Topology& topology, const JobSpec& job, GpuTypeMask allowed, int type);
  // One row: steps_per_s for every type of the cluster.
  std::vector<double> row(const Topology& topology, const JobSpec& job, GpuTypeMask allowed);

 private:
  using Key = std::tuple<const Topology*, std::string, int, int, int, int>;
  const GpuCatalog& gpus_;
  const ModelCatalog& models_;
  std::map<Key, double> cache_;
};

// The cluster type index of the GPUs a running job holds (its first GPU).
int placement_type(const Cluster& cluster, const Placement& placement);

}  // namespace vnsim
