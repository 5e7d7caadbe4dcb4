// Node revocations and failures (docs/SPOT.md), the controller's side: the
// NodeEventSchedule says which node leaves or returns and when; a returned
// node's GPUs are freed here, a node that left goes to the JobLifecycle
// (job_node_loss.cpp), which stops its jobs and holds its GPUs.
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
        lifecycle_.take_node_down(*c);
        break;
    }
  }
}

}  // namespace vnsim::sim
