#pragma once
// The data movement of an in-place resize (VirtualFlow): after the
// communicator is rebuilt (a fixed setup latency), every GPU that joins the
// job receives the parameters and optimizer state from a GPU that already
// holds them, as real SimGrid flows that share links with every other job.
#include <memory>
#include <simgrid/s4u/Host.hpp>
#include <utility>
#include <vector>

#include "completion_channel.hpp"

namespace vnsim::sim {

struct StateBroadcast {
  JobIndex job = 0;
  int epoch = 0;                  // reported with the job; a stale epoch is ignored
  double setup_s = 0;             // communicator rebuild, before any byte moves
  double bytes_per_receiver = 0;  // parameters + optimizer state
  std::vector<std::pair<simgrid::s4u::Host*, simgrid::s4u::Host*>> flows;  // (source, receiver)
};

// Starts one actor that sleeps setup_s, runs all flows at once and reports
// (job, epoch) on `channel` when the last one ends. Must be called from
// inside the simulation.
void launch_state_broadcast(StateBroadcast broadcast, std::shared_ptr<CompletionChannel> channel);

}  // namespace vnsim::sim
