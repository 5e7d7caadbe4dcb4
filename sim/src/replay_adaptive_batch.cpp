// Adaptive batch size (Pollux, issue 6): when a policy changes a job's
// global batch, the work left follows the statistical efficiency at the new
// batch (core/goodput.hpp, docs/POLICIES.md "Adaptive batch size in the engine").
#include <algorithm>
#include <cmath>

#include "replay_controller.hpp"
#include "vnsim/core/goodput.hpp"

namespace vnsim::sim {

int ReplayController::virtual_nodes_of(JobIndex job) const {
  return state_[job].virtual_nodes > 0 ? state_[job].virtual_nodes : in_.jobs[job].effective_virtual_nodes();
}

// iterations_done counts steps at the job's current batch: on a change it is
// re-expressed so that spec.iterations - iterations_done is the number of
// steps left at the new batch (it may go below 0 when the new batch needs
// more steps than the spec's total). A job that never changes batch keeps
// the plain count.
void ReplayController::change_batch(JobIndex job, int new_batch, int new_virtual_nodes) {
  JobState& s = state_[job];
  const JobSpec& spec = in_.jobs[job];
  const int old_batch = batch_of(job);
  if (new_batch != old_batch) {
    const long long left = spec.iterations - s.iterations_done;
    if (left > 0) {
      const NoiseScaleCatalog& noise =
          in_.options.noise_profiles ? *in_.options.noise_profiles : NoiseScaleCatalog::builtin();
      const double steps = steps_left_after_batch_change(noise.find(spec.model), spec.global_batch,
                                                         static_cast<double>(spec.iterations), old_batch,
                                                         static_cast<double>(left), new_batch);
      s.iterations_done = spec.iterations - std::max(1LL, std::llround(steps));
    }
  }
  s.global_batch = new_batch;
  s.virtual_nodes = new_virtual_nodes;
}

}  // namespace vnsim::sim
