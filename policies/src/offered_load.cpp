#include "vnsim/policies/offered_load.hpp"

#include <algorithm>

#include "vnsim/core/feasibility.hpp"
#include "vnsim/core/topology.hpp"
#include "vnsim/policies/alone_estimate.hpp"

namespace vnsim {

double alone_gpu_seconds(const std::vector<JobSpec>& jobs, const Cluster& cluster, const GpuCatalog& gpus,
                         const ModelCatalog& models) {
  const Topology topology(cluster);
  AloneEstimator alone(topology, gpus, models);
  double sum = 0;
  for (const JobSpec& j : jobs) {
    const double s = alone.estimate_s(j, allowed_gpu_types(j, cluster, gpus, models));
    if (s > 0) sum += s * j.gpus;
  }
  return sum;
}

double offered_load(const std::vector<JobSpec>& jobs, double alone_gpu_s, int cluster_gpus) {
  if (jobs.size() < 2 || cluster_gpus <= 0) return 0;
  const auto [first, last] = std::minmax_element(
      jobs.begin(), jobs.end(), [](const JobSpec& a, const JobSpec& b) { return a.submit_s < b.submit_s; });
  const double span = last->submit_s - first->submit_s;
  return span > 0 ? alone_gpu_s / (static_cast<double>(cluster_gpus) * span) : 0;
}

}  // namespace vnsim
