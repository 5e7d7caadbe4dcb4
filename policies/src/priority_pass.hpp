#pragma once
// The pass shared by the priority policies (SJF, SRTF, Tiresias), after the
// Tiresias simulator: walk the jobs in priority order and choose each one
// whose whole gang still fits in the cluster's GPU count; start the chosen
// queued jobs; a running job not chosen is preempted only when its GPUs are
// needed to place a chosen job (so it keeps running while it still fits).
// With SchedulerInput::gpu_capacity set (VC quota mode) the pass counts
// against that capacity instead of the cluster's GPUs, so a chosen job that
// would take the jobs past it preempts lower-priority jobs as a full cluster
// would.
#include <vector>

#include "vnsim/policies/placement.hpp"
#include "vnsim/policies/policy.hpp"

namespace vnsim {

struct PassCandidate {
  JobIndex index;
  const JobSpec* spec;
  GpuTypeMask allowed;         // engine mask (type constraint, memory)
  const Placement* placement;  // running jobs: where; queued: nullptr
};

// `ordered`: running and queued jobs, highest priority first. With
// `preemptive` false no running job is ever preempted.
std::vector<Decision> priority_pass(const SchedulerInput& input, const std::vector<PassCandidate>& ordered,
                                    PlacementStrategy& placement, bool preemptive);

// The pass in its two steps, for a policy that chooses without listing
// every job (Tiresias, when the choice is plain from its own order).
struct PassChoice {
  std::vector<PassCandidate> chosen_queued;  // highest priority first
  std::vector<PassCandidate> victims;        // running, not chosen: lowest priority first
};
// GPUs the pass may hand out by count: the cluster's, or the input's
// capacity when capped.
int pass_capacity(const SchedulerInput& input);
// Places the chosen queued jobs, preempting victims where that lets one in.
std::vector<Decision> place_chosen(const SchedulerInput& input, const PassChoice& choice,
                                   PlacementStrategy& placement);

}  // namespace vnsim
