#pragma once
// GPU sharing: how fast a job runs next to the co-tenants of its GPUs, by
// the interference table's fractions (docs/HETEROGENEITY.md, "GPU
// sharing"). It reads who holds which GPU from the ClusterView and knows
// each job's interference family; it holds no progress of its own. No
// SimGrid.
#include <string>
#include <vector>

#include "vnsim/core/cluster.hpp"
#include "vnsim/core/job_spec.hpp"
#include "vnsim/policies/policy.hpp"

namespace vnsim::sim {

// The interference family of each job's model.
std::vector<std::string> interference_families(const std::vector<JobSpec>& jobs);

class GpuSharing {
 public:
  GpuSharing(const Cluster& cluster, const std::vector<JobSpec>& jobs, const ClusterView& view);

  // A start's share must be 0..kGpuMilli and fit beside every tenant of its
  // GPUs (interference fraction > 0 both ways); std::logic_error naming the
  // policy otherwise.
  void check_share(const std::string& policy, const StartJob& d, const std::vector<GpuId>& gpus) const;
  // The job's speed on GPU g next to its other tenants (1 = alone).
  double gpu_rate(JobIndex job, GpuId g) const;
  // A synchronous job runs at its slowest GPU.
  double slowest_rate(JobIndex job, const std::vector<GpuId>& gpus) const;
  // The jobs other than `except` that hold a share of any of `gpus`, in
  // index order.
  std::vector<JobIndex> co_tenants(const std::vector<GpuId>& gpus, JobIndex except) const;

 private:
  const Cluster& cluster_;
  const std::vector<JobSpec>& jobs_;
  const ClusterView& view_;
  std::vector<std::string> family_;  // interference family of each job's model
};

}  // namespace vnsim::sim
