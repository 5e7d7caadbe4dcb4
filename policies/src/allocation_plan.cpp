#include "allocation_plan.hpp"

#include <algorithm>
#include <map>
#include <optional>
#include <utility>
#include <variant>

#include "vnsim/policies/placement.hpp"

namespace vnsim {
namespace {

Placement uniform(std::vector<GpuId> gpus, int vn_per_gpu) {
  Placement p;
  p.vn_per_gpu.assign(gpus.size(), vn_per_gpu);
  p.gpus = std::move(gpus);
  return p;
}

// The target's GPUs: on each node first those the job already holds there,
// then free ones. nullopt when a node lacks free GPUs.
std::optional<std::vector<GpuId>> choose(const FreeGpus& free, const Cluster& cluster,
                                         const std::vector<GpuId>& current, const TargetAllocation& t) {
  std::vector<GpuId> out;
  for (const auto& [node, count] : t.gpus_per_node) {
    int left = count;
    for (GpuId g : current)
      if (left > 0 && cluster.gpu(g).node == node) {
        out.push_back(g);
        --left;
      }
    if (left == 0) continue;
    const std::vector<GpuId> spare = free.on_node(node);
    if (static_cast<int>(spare.size()) < left) return std::nullopt;
    out.insert(out.end(), spare.begin(), spare.begin() + left);
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<GpuId> minus(const std::vector<GpuId>& a, const std::vector<GpuId>& b) {
  std::vector<GpuId> out;
  for (GpuId g : a)
    if (std::find(b.begin(), b.end(), g) == b.end()) out.push_back(g);
  return out;
}

}  // namespace

std::vector<std::pair<NodeId, int>> gpus_per_node(const Cluster& cluster, const std::vector<GpuId>& gpus) {
  std::map<NodeId, int> counts;
  for (GpuId g : gpus) ++counts[cluster.gpu(g).node];
  return {counts.begin(), counts.end()};
}

std::vector<Decision> apply_targets(const SchedulerInput& input, const std::vector<TargetAllocation>& targets,
                                    ResizeMode mode) {
  const Cluster& cluster = input.view->cluster();
  std::map<JobIndex, const RunningJob*> running;
  for (const RunningJob& r : input.running) running[r.index] = &r;
  FreeGpus free(*input.view, input.running);
  std::vector<Decision> out;
  std::vector<const TargetAllocation*> moves;
  std::vector<const TargetAllocation*> starts;
  for (const TargetAllocation& t : targets) {
    auto it = running.find(t.job);
    if (it == running.end()) {
      if (!t.gpus_per_node.empty()) starts.push_back(&t);
      continue;
    }
    std::vector<std::pair<NodeId, int>> wanted = t.gpus_per_node;
    std::sort(wanted.begin(), wanted.end());
    const bool same_gpus = wanted == gpus_per_node(cluster, it->second->placement.gpus);
    if (t.gpus_per_node.empty()) {
      out.emplace_back(std::in_place_type<PreemptJob>, PreemptJob{t.job});
      free.release(it->second->placement.gpus);
    } else if (!same_gpus) {
      moves.push_back(&t);
    } else if (t.batch_changed) {
      out.emplace_back(std::in_place_type<ResizeJob>,
                       ResizeJob{t.job, uniform(it->second->placement.gpus, t.vn_per_gpu),
                                 ResizeMode::InPlace, t.global_batch});
    }
  }
  // Shrinks and moves onto free GPUs first; each one frees GPUs for others.
  for (bool progress = true; progress && !moves.empty();) {
    progress = false;
    for (auto it = moves.begin(); it != moves.end();) {
      const TargetAllocation& t = **it;
      const std::vector<GpuId>& current = running[t.job]->placement.gpus;
      const auto gpus = choose(free, cluster, current, t);
      if (!gpus) {
        ++it;
        continue;
      }
      free.release(minus(current, *gpus));
      free.take(minus(*gpus, current));
      out.emplace_back(std::in_place_type<ResizeJob>,
                       ResizeJob{t.job, uniform(*gpus, t.vn_per_gpu), mode, t.global_batch});
      it = moves.erase(it);
      progress = true;
    }
  }
  // A cycle of moves: stop them all, then start them like queued jobs.
  for (const TargetAllocation* t : moves) {
    out.emplace_back(std::in_place_type<PreemptJob>, PreemptJob{t->job});
    free.release(running[t->job]->placement.gpus);
  }
  starts.insert(starts.begin(), moves.begin(), moves.end());
  for (const TargetAllocation* t : starts) {
    const auto gpus = choose(free, cluster, {}, *t);
    if (!gpus) continue;  // the plan overcommitted a node: the job waits a round
    free.take(*gpus);
    out.emplace_back(std::in_place_type<StartJob>, StartJob{t->job, uniform(*gpus, t->vn_per_gpu)});
    // A start keeps the job's batch; a new one follows as an in-place resize
    // on the same GPUs (the engine charges the communicator set-up).
    if (t->global_batch > 0 && t->global_batch != t->current_batch)
      out.emplace_back(std::in_place_type<ResizeJob>, ResizeJob{t->job, uniform(*gpus, t->vn_per_gpu),
                                                                ResizeMode::InPlace, t->global_batch});
  }
  return out;
}

}  // namespace vnsim
