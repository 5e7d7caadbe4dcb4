#include "type_throughput.hpp"

#include <bit>

#include "vnsim/core/consolidated_placement.hpp"
#include "vnsim/core/perf_model.hpp"

namespace vnsim {

double TypeThroughput::steps_per_s(const Topology& topology, const JobSpec& job, GpuTypeMask allowed,
                                   int type) {
  const GpuTypeMask bit = GpuTypeMask{1} << type;
  if ((allowed & bit) == 0 || job.gpus <= 0) return 0;
  Key key{&topology, job.model, job.gpus, type, job.effective_virtual_nodes(), job.global_batch};
  auto it = cache_.find(key);
  if (it != cache_.end()) return it->second;
  double rate = 0;
  if (auto gpus = consolidated_gpus_on_empty_cluster(topology.cluster(), job.gpus, bit)) {
    const Placement p = spread_virtual_nodes(std::move(*gpus), job.effective_virtual_nodes());
    const double t = iteration_time(topology, gpus_, models_.at(job.model), p, job.global_batch).total_s;
    rate = t > 0 ? 1.0 / t : 0;
  }
  cache_.emplace(std::move(key), rate);
  return rate;
}

std::vector<double> TypeThroughput::row(const Topology& topology, const JobSpec& job, GpuTypeMask allowed) {
  const int types = static_cast<int>(topology.cluster().gpu_types().size());
  std::vector<double> out(types, 0);
  for (int j = 0; j < types; ++j) out[j] = steps_per_s(topology, job, allowed, j);
  return out;
}

int placement_type(const Cluster& cluster, const Placement& placement) {
  if (placement.gpus.empty()) return -1;
  // The cluster's per-GPU type bit, not a search of the type names by
  // string: round-based policies ask this for every running job per call.
  return std::countr_zero(cluster.gpu_type_bit(placement.gpus.front()));
}

}  // namespace vnsim
