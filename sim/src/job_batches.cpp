// Adaptive batch size (Pollux, issue 6): when a policy changes a job's
// global batch, the work left follows the statistical efficiency at the new
// batch (core/goodput.hpp, docs/POLICIES.md "Adaptive batch size in the engine").
#include "job_batches.hpp"

#include <algorithm>
#include <cmath>

#include "vnsim/core/goodput.hpp"

namespace vnsim::sim {

JobBatches::JobBatches(const std::vector<JobSpec>& jobs, const NoiseScaleCatalog* noise)
    : jobs_(jobs), noise_(noise), global_batch_(jobs.size()), virtual_nodes_(jobs.size(), 0) {
  for (std::size_t i = 0; i < jobs.size(); ++i) global_batch_[i] = jobs[i].global_batch;
}

int JobBatches::batch_of(JobIndex job) const {
  return global_batch_[job] > 0 ? global_batch_[job] : jobs_[job].global_batch;
}

int JobBatches::virtual_nodes_of(JobIndex job) const {
  return virtual_nodes_[job] > 0 ? virtual_nodes_[job] : jobs_[job].effective_virtual_nodes();
}

// iterations_done counts steps at the job's current batch: on a change it is
// re-expressed so that spec.iterations - iterations_done is the number of
// steps left at the new batch (it may go below 0 when the new batch needs
// more steps than the spec's total). A job that never changes batch keeps
// the plain count.
long long JobBatches::change_batch(JobIndex job, int new_batch, int new_virtual_nodes,
                                   long long iterations_done) {
  const JobSpec& spec = jobs_[job];
  const int old_batch = batch_of(job);
  if (new_batch != old_batch) {
    const long long left = spec.iterations - iterations_done;
    if (left > 0) {
      const NoiseScaleCatalog& noise = noise_ ? *noise_ : NoiseScaleCatalog::builtin();
      const double steps = steps_left_after_batch_change(noise.find(spec.model), spec.global_batch,
                                                         static_cast<double>(spec.iterations), old_batch,
                                                         static_cast<double>(left), new_batch);
      iterations_done = spec.iterations - std::max(1LL, std::llround(steps));
    }
  }
  global_batch_[job] = new_batch;
  virtual_nodes_[job] = new_virtual_nodes;
  return iterations_done;
}

}  // namespace vnsim::sim
