#include "priority_pass.hpp"

namespace vnsim {
namespace {

std::optional<std::vector<GpuId>> place_candidate(PlacementStrategy& placement, const FreeGpus& free,
                                                  const PassCandidate& c) {
  const GpuTypeMask allowed = c.allowed & free.cluster().type_mask(c.spec->gpu_type);
  return placement.place(free, c.spec->gpus, allowed);
}

}  // namespace

std::vector<Decision> priority_pass(const SchedulerInput& input, const std::vector<PassCandidate>& ordered,
                                    PlacementStrategy& placement, bool preemptive) {
  std::vector<Decision> decisions;
  if (input.view == nullptr) return decisions;
  FreeGpus free(*input.view, input.running);

  // Choose by GPU count (the Tiresias simulator's "count" model).
  int capacity = free.cluster().gpu_count();
  std::vector<const PassCandidate*> chosen_queued;
  std::vector<const PassCandidate*> victims;  // running, not chosen: lowest priority first
  for (const PassCandidate& c : ordered) {
    const bool chosen = c.spec->gpus <= capacity;
    if (chosen) capacity -= c.spec->gpus;
    if (c.placement == nullptr) {
      if (chosen) chosen_queued.push_back(&c);
    } else if (!chosen && preemptive) {
      victims.insert(victims.begin(), &c);
    }
  }

  std::size_t next_victim = 0;
  for (const PassCandidate* c : chosen_queued) {
    auto gpus = place_candidate(placement, free, *c);
    if (!gpus && next_victim < victims.size()) {
      // Preempt only when giving back every remaining victim would let the
      // job in; otherwise the preemptions would buy nothing.
      FreeGpus trial = free;
      for (std::size_t v = next_victim; v < victims.size(); ++v) trial.release(victims[v]->placement->gpus);
      if (!place_candidate(placement, trial, *c)) continue;
      while (!gpus && next_victim < victims.size()) {
        const PassCandidate* v = victims[next_victim++];
        decisions.emplace_back(std::in_place_type<PreemptJob>, PreemptJob{v->index});
        free.release(v->placement->gpus);
        gpus = place_candidate(placement, free, *c);
      }
    }
    if (!gpus) continue;
    free.take(*gpus);
    decisions.emplace_back(
        std::in_place_type<StartJob>,
        StartJob{c->index, spread_virtual_nodes(std::move(*gpus), c->spec->effective_virtual_nodes())});
  }
  return decisions;
}

}  // namespace vnsim
