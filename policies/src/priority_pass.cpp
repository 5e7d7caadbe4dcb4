#include "priority_pass.hpp"

#include <algorithm>
#include <limits>
#include <optional>

namespace vnsim {
namespace {

std::optional<std::vector<GpuId>> place_candidate(PlacementStrategy& placement, const FreeGpus& free,
                                                  const PassCandidate& c) {
  const GpuTypeMask allowed = c.allowed & free.cluster().type_mask(c.spec->gpu_type);
  return placement.place(free, c.spec->gpus, allowed);
}

}  // namespace

int pass_capacity(const SchedulerInput& input) {
  int capacity = input.view->cluster().gpu_count();
  if (input.gpu_capacity >= 0) capacity = std::min(capacity, input.gpu_capacity);
  return capacity;
}

std::vector<Decision> priority_pass(const SchedulerInput& input, const std::vector<PassCandidate>& ordered,
                                    PlacementStrategy& placement, bool preemptive) {
  if (input.view == nullptr) return {};
  // Choose by GPU count (the Tiresias simulator's "count" model), within
  // the input's capacity when it is capped (VC quota mode).
  int capacity = pass_capacity(input);
  PassChoice choice;
  for (const PassCandidate& c : ordered) {
    const bool chosen = c.spec->gpus <= capacity;
    if (chosen) capacity -= c.spec->gpus;
    if (c.placement == nullptr) {
      if (chosen) choice.chosen_queued.push_back(c);
    } else if (!chosen && preemptive) {
      choice.victims.push_back(c);
    }
  }
  // Collected highest priority first; reversed once, not inserted at the
  // front one by one (quadratic in the running jobs on a full cluster).
  std::reverse(choice.victims.begin(), choice.victims.end());
  return place_chosen(input, choice, placement);
}

std::vector<Decision> place_chosen(const SchedulerInput& input, const PassChoice& choice,
                                   PlacementStrategy& placement) {
  std::vector<Decision> decisions;
  if (input.view == nullptr || choice.chosen_queued.empty()) return decisions;
  FreeGpus free(*input.view, input.running);
  const std::vector<PassCandidate>& victims = choice.victims;
  const bool capped = input.gpu_capacity >= 0;
  // Capped: GPUs the jobs may still take, counted whole, so a start never
  // takes the running jobs past the capacity even where the cluster has
  // free GPUs (a job too large for it preempts lower-priority jobs first).
  int budget = std::numeric_limits<int>::max();
  if (capped) {
    budget = input.gpu_capacity;
    for (const RunningJob& r : input.running) budget -= static_cast<int>(r.placement.gpus.size());
  }
  const auto place_within = [&](const FreeGpus& gpus, const PassCandidate& c,
                                int left) -> std::optional<std::vector<GpuId>> {
    if (c.spec->gpus > left) return std::nullopt;
    return place_candidate(placement, gpus, c);
  };

  // The free GPUs with every victim not preempted yet given back: what a
  // chosen job that does not fit the free ones could have at most. Made at
  // the first such job and kept up to date after, as the same set (a start
  // takes its GPUs from both; a preemption moves GPUs already in it into
  // `free`), where a copy of `free` with the victims released again for
  // each such job was the pass's own cost on a Gandiva slice that rotates
  // some 20 jobs (docs/PERFORMANCE_HISTORY.md, "Gandiva's slices made
  // cheaper (twelfth pass)"). `victim_gpus_from[v]`: the victims' GPUs from v on.
  std::optional<FreeGpus> with_victims;
  std::vector<int> victim_gpus_from;
  std::size_t next_victim = 0;
  for (const PassCandidate& c : choice.chosen_queued) {
    auto gpus = place_within(free, c, budget);
    if (!gpus && next_victim < victims.size()) {
      // Preempt only when giving back every remaining victim would let the
      // job in; otherwise the preemptions would buy nothing.
      if (!with_victims) {
        with_victims.emplace(free);
        for (std::size_t v = next_victim; v < victims.size(); ++v)
          with_victims->release(victims[v].placement->gpus);
        victim_gpus_from.assign(victims.size() + 1, 0);
        for (std::size_t v = victims.size(); v-- > 0;)
          victim_gpus_from[v] = victim_gpus_from[v + 1] + static_cast<int>(victims[v].placement->gpus.size());
      }
      const int trial_budget = capped ? budget + victim_gpus_from[next_victim] : budget;
      if (!place_within(*with_victims, c, trial_budget)) continue;
      while (!gpus && next_victim < victims.size()) {
        const PassCandidate& v = victims[next_victim++];
        decisions.emplace_back(std::in_place_type<PreemptJob>, PreemptJob{v.index});
        free.release(v.placement->gpus);
        if (capped) budget += static_cast<int>(v.placement->gpus.size());
        gpus = place_within(free, c, budget);
      }
    }
    if (!gpus) continue;
    free.take(*gpus);
    if (with_victims) with_victims->take(*gpus);
    if (capped) budget -= static_cast<int>(gpus->size());
    decisions.emplace_back(
        std::in_place_type<StartJob>,
        StartJob{c.index, spread_virtual_nodes(std::move(*gpus), c.spec->effective_virtual_nodes())});
  }
  return decisions;
}

}  // namespace vnsim
