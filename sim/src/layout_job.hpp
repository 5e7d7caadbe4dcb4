#pragma once
// A DP x TP x PP job (core/layout_perf.hpp) on SimGrid: one actor per GPU.
// Per macro-iteration of k iterations a rank spends k pipelines' compute and
// TP all-reduces locally (TP stays inside a node, priced analytically), then
// sends its pipeline traffic (k pipelines' activations to the next stage,
// then gradients to the previous one) and runs its DP ring all-reduce, all as
// mailbox comms, so the inter-node parts share NICs and uplinks with other
// jobs. On an idle network this is layout_iteration_time's total_s per
// iteration.
#include <memory>
#include <simgrid/s4u/Host.hpp>
#include <vector>

#include "flow_job.hpp"
#include "vnsim/core/parallel_layout.hpp"

namespace vnsim::sim {

struct LayoutSimJob {
  JobIndex job = 0;
  int epoch = 0;  // part of mailbox names, so a relaunch never matches stale messages
  std::vector<simgrid::s4u::Host*> ranks;  // rank order (parallel_layout.hpp)
  ParallelLayout layout;
  double local_step_s = 0;       // compute + TP of one pipeline step
  long long pipeline_steps = 0;  // m + pp - 1
  double pp_flow_bytes = 0;      // per GPU and step, each direction
  double dp_chunk_bytes = 0;     // per GPU and DP ring step
  long long iterations = 0;
  long long iterations_per_macro = 1;
  long long iterations_per_macro_contended = 1;  // k while sharing a link (flow_job.hpp)
  double iteration_s = 0;                        // idle-network, to credit a preempted macro-iteration
};

// Starts the actors (from inside the simulation). When the last rank is
// done, (job, epoch) is reported on `channel`.
std::shared_ptr<FlowJob> launch_layout_job(LayoutSimJob job, std::shared_ptr<CompletionChannel> channel);

}  // namespace vnsim::sim
