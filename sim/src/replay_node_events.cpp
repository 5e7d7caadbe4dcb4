// Node revocations and failures (docs/SPOT.md), the controller's side: the
// NodeEventSchedule says which node leaves or returns and when; here the jobs
// on a node that left lose their work since their last checkpoint and go back
// to the queue, and the node's GPUs are held by a placeholder owner until it
// returns, so no policy can place on them.
#include <algorithm>
#include <optional>
#include <vector>

#include "replay_controller.hpp"

namespace vnsim::sim {

void ReplayController::process_node_events(double now) {
  while (std::optional<NodeChange> c = node_events_.next_due(now, recorder_.all_done())) {
    switch (c->kind) {
      case NodeChange::Kind::Returned:
        view_.release(c->gpus, in_.jobs.size());
        recorder_.node_returned(c->gpus, c->time_s);
        break;
      case NodeChange::Kind::WhileDown:
        recorder_.node_event();
        break;
      case NodeChange::Kind::Left:
        recorder_.node_event();
        take_node_down(*c);
        break;
    }
  }
}

void ReplayController::take_node_down(const NodeChange& change) {
  const double now = change.time_s;
  const auto on_node = [&](GpuId g) {
    return std::find(change.gpus.begin(), change.gpus.end(), g) != change.gpus.end();
  };
  // Victims in job-index order, so the requeue order never depends on the
  // order of the running list.
  std::vector<JobIndex> victims;
  for (const RunningJob& r : driver_.running()) {
    const std::vector<GpuId>& held = state_[r.index].placement.gpus;
    if (std::any_of(held.begin(), held.end(), on_node)) victims.push_back(r.index);
  }
  std::sort(victims.begin(), victims.end());
  for (JobIndex j : victims) {
    stop_and_requeue(j, now, AllocationCause::NodeDown);
    if (state_[j].phase == Phase::Queued) recorder_.job_revoked();
  }
  if (!victims.empty()) last_event_s_ = std::max(last_event_s_, now);
  view_.allocate(change.gpus, in_.jobs.size());  // the placeholder owner: one past the last job
  recorder_.node_left(change.gpus, now);
}

}  // namespace vnsim::sim
