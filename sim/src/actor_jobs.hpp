#pragma once
// The jobs that run as SimGrid actors (ring jobs, parameter-server and
// layout jobs, the state broadcast of a resize): launched with the
// completion channel they report to, and, once stopped or ended, kept until
// no comm of theirs is in flight, then dropped so their actors' stacks are
// unmapped (in SimGrid 3.32, dropping the last reference to an in-flight
// comm aborts with "Comm freed before its completion").
#include <memory>
#include <vector>

#include "completion_channel.hpp"
#include "flow_job.hpp"
#include "layout_job.hpp"
#include "ps_job.hpp"
#include "ring_job.hpp"
#include "state_broadcast.hpp"

namespace vnsim::sim {

class ActorJobs {
 public:
  // Creates the channel: inside the engine (the controller actor), before
  // any launch.
  void open() { channel_ = std::make_shared<CompletionChannel>(); }
  CompletionChannel& channel() { return *channel_; }

  std::shared_ptr<RingState> launch(RingJob job) { return launch_ring_job(std::move(job), channel_); }
  std::shared_ptr<FlowJob> launch(PsSimJob job) { return launch_ps_job(std::move(job), channel_); }
  std::shared_ptr<FlowJob> launch(LayoutSimJob job) { return launch_layout_job(std::move(job), channel_); }
  void launch(StateBroadcast broadcast) { launch_state_broadcast(std::move(broadcast), channel_); }

  // A stopped or ended job's actors: kept until quiescent.
  void retire(std::shared_ptr<RingState> ring) { stopped_rings_.push_back(std::move(ring)); }
  void retire(std::shared_ptr<FlowJob> flow) { stopped_flows_.push_back(std::move(flow)); }
  // Drops the retired jobs none of whose comms is in flight any more.
  void release_quiescent();

 private:
  std::shared_ptr<CompletionChannel> channel_;
  std::vector<std::shared_ptr<RingState>> stopped_rings_;
  std::vector<std::shared_ptr<FlowJob>> stopped_flows_;
};

}  // namespace vnsim::sim
