#pragma once
// A multi-node job as one actor per GPU doing a ring all-reduce over mailbox
// comms, in macro-iterations (simgrid.md §1, §4.4): each macro-iteration of k
// iterations computes k iterations, then sends k iterations' worth of ring
// traffic to the next rank in one comm, so the network carries the job's
// traffic with the right duty cycle at a cost that does not grow with k.
#include <memory>
#include <simgrid/s4u/Host.hpp>
#include <vector>

#include "completion_channel.hpp"

namespace vnsim::sim {

struct RingJob {
  JobIndex job = 0;
  int epoch = 0;  // part of mailbox names, so a relaunch never matches stale messages
  std::vector<simgrid::s4u::Host*> ranks;   // ring order
  std::vector<double> flops_per_iteration;  // per rank
  double gradient_bytes = 0;                // all-reduced per iteration
  long long iterations = 0;
  long long iterations_per_macro = 1;  // k
};

// k = ceil(iterations / M); M <= 0 means one iteration per macro-iteration
// (every iteration simulated: the reference for fidelity studies).
long long iterations_per_macro(long long iterations, int macro_iterations);

// Starts the rank actors. When the last rank finishes, the job index is
// reported on `channel`. Must be called from inside the simulation.
void launch_ring_job(RingJob job, std::shared_ptr<CompletionChannel> channel);

}  // namespace vnsim::sim
