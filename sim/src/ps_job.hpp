#pragma once
// A parameter-server job on SimGrid (core/parameter_server.hpp for the
// model): one actor per worker and, per server, either one actor
// (synchronous: it waits for every worker's push before answering) or one
// actor per worker (asynchronous: each push is answered at once). Pushes and
// pulls are mailbox comms, so they share the servers' NICs with every other
// job's flows. Macro-iterations as in ring_job.hpp: k steps of compute, then
// k steps' bytes in one comm, sleeping the k-1 saved latencies.
#include <memory>
#include <simgrid/s4u/Host.hpp>
#include <vector>

#include "flow_job.hpp"

namespace vnsim::sim {

struct PsSimJob {
  JobIndex job = 0;
  int epoch = 0;  // part of mailbox names, so a relaunch never matches stale messages
  std::vector<simgrid::s4u::Host*> servers;
  std::vector<simgrid::s4u::Host*> workers;
  std::vector<double> worker_flops;  // per worker and step, stragglers included
  double gradient_bytes = 0;         // pushed and pulled by each worker per step
  bool async = false;
  // Synchronous: steps of every worker. Asynchronous: updates the servers
  // apply, whichever workers push them.
  long long iterations = 0;
  long long iterations_per_macro = 1;            // per worker
  long long iterations_per_macro_contended = 1;  // k while sharing a link (flow_job.hpp)
  double iteration_s = 0;  // idle-network time per iteration, to credit a preempted macro
};

// Starts the actors (from inside the simulation). When the last worker is
// done, (job, epoch) is reported on `channel`.
std::shared_ptr<FlowJob> launch_ps_job(PsSimJob job, std::shared_ptr<CompletionChannel> channel);

}  // namespace vnsim::sim
