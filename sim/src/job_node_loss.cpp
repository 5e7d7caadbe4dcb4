// A node that left (docs/SPOT.md): the jobs on it lose their work since
// their last checkpoint and go back to the queue, and the node's GPUs are
// held by a placeholder owner until it returns, so no policy can place on
// them.
#include <algorithm>
#include <vector>

#include "job_lifecycle.hpp"

namespace vnsim::sim {

void JobLifecycle::take_node_down(const NodeChange& change) {
  const double now = change.time_s;
  const auto on_node = [&](GpuId g) {
    return std::find(change.gpus.begin(), change.gpus.end(), g) != change.gpus.end();
  };
  // Victims in job-index order, so the requeue order never depends on the
  // order of the running list.
  std::vector<JobIndex> victims;
  for (const RunningJob& r : parts_.driver.running()) {
    const std::vector<GpuId>& held = state_[r.index].placement.gpus;
    if (std::any_of(held.begin(), held.end(), on_node)) victims.push_back(r.index);
  }
  std::sort(victims.begin(), victims.end());
  for (JobIndex j : victims) {
    stop_and_requeue(j, now, AllocationCause::NodeDown);
    if (state_[j].phase == Phase::Queued) parts_.recorder.job_revoked();
  }
  if (!victims.empty()) note_event(now);
  view_.allocate(change.gpus, in_.jobs.size());  // the placeholder owner: one past the last job
  parts_.recorder.node_left(change.gpus, now);
}

}  // namespace vnsim::sim
