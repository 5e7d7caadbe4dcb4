#pragma once
// Each job's current global batch and virtual nodes. They start as the
// spec's; a policy may start a job on other virtual nodes (Pollux's
// accumulation steps) and an adaptive-batch resize may change both (Pollux,
// issue 6), which re-expresses the work left. No SimGrid.
#include <vector>

#include "vnsim/core/goodput.hpp"
#include "vnsim/core/job_spec.hpp"
#include "vnsim/policies/policy.hpp"

namespace vnsim::sim {

class JobBatches {
 public:
  // `noise`: the gradient noise profiles for the work left after a batch
  // change; nullptr = the built-in ones (ReplayOptions::noise_profiles).
  explicit JobBatches(const std::vector<JobSpec>& jobs, const NoiseScaleCatalog* noise = nullptr);

  int batch_of(JobIndex job) const;
  int virtual_nodes_of(JobIndex job) const;
  // The virtual nodes a start's placement spreads (0 = the spec's).
  void set_virtual_nodes(JobIndex job, int virtual_nodes) { virtual_nodes_[job] = virtual_nodes; }
  void set_batch(JobIndex job, int global_batch) { global_batch_[job] = global_batch; }
  // A policy changed the job's global batch (and V with it); returns the
  // job's iterations done re-expressed at the new batch.
  long long change_batch(JobIndex job, int new_batch, int new_virtual_nodes, long long iterations_done);

 private:
  const std::vector<JobSpec>& jobs_;
  const NoiseScaleCatalog* noise_;
  std::vector<int> global_batch_;   // current global batch; 0 = the spec's
  std::vector<int> virtual_nodes_;  // current V; 0 = the spec's
};

}  // namespace vnsim::sim
