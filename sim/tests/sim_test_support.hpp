#pragma once
// Jobs and a scripted policy for the sim tests. Their clusters are the shared
// JSON files of tests/clusters/ (test_clusters.hpp; sim-*: the reference
// links, so results compare with hand-computed ones). Each sim test runs in
// its own process (one SimGrid engine per process).
#include <gtest/gtest.h>

#include <map>
#include <set>
#include <string>
#include <vector>

#include "test_clusters.hpp"
#include "vnsim/core/cluster.hpp"
#include "vnsim/core/gpu_catalog.hpp"
#include "vnsim/core/model_catalog.hpp"
#include "vnsim/core/units.hpp"
#include "vnsim/policies/policy.hpp"
#include "vnsim/sim/replay.hpp"

namespace vnsim::testing {

// The builtin model with the largest gradient: the most communication-bound.
inline const ModelParams& most_communicating_model() {
  const ModelCatalog& models = ModelCatalog::builtin();
  const ModelParams* best = nullptr;
  for (const auto& name : models.names())
    if (best == nullptr || models.at(name).gradient_bytes > best->gradient_bytes) best = &models.at(name);
  return *best;
}

inline JobSpec make_job(const std::string& id, double submit_s, const ModelParams& model, int gpus,
                        long long iterations) {
  JobSpec j;
  j.id = id;
  j.submit_s = submit_s;
  j.model = model.name;
  j.gpus = gpus;
  j.virtual_nodes = gpus;
  j.global_batch = gpus * model.min_local_batch;
  j.iterations = iterations;
  return j;
}

// The actor ring engine (`--actor-rings`): one SimGrid actor per GPU,
// iteration by iteration while contended. Tests of what the actors do select
// it, since the default times rings with the fluid model.
inline ReplayOptions actor_ring_options() {
  ReplayOptions options;
  options.fluid_rings = false;
  return options;
}

// Starts each job on the GPUs scripted for it as soon as they are all free;
// jobs without a script stay queued forever.
class ScriptedPolicy : public Policy {
 public:
  explicit ScriptedPolicy(std::map<JobIndex, std::vector<GpuId>> plan) : plan_(std::move(plan)) {}
  std::string name() const override { return "scripted"; }
  std::vector<Decision> decide(const SchedulerInput& in) override {
    ++calls;
    std::vector<Decision> out;
    std::set<GpuId> taken;
    for (const QueuedJob& q : in.queued) {
      auto it = plan_.find(q.index);
      if (it == plan_.end()) continue;
      bool fits = true;
      for (GpuId g : it->second) fits = fits && in.view->is_free(g) && taken.count(g) == 0;
      if (!fits) continue;
      taken.insert(it->second.begin(), it->second.end());
      out.push_back(StartJob{q.index, spread_virtual_nodes(it->second, q.spec->effective_virtual_nodes())});
    }
    return out;
  }
  int calls = 0;

 private:
  std::map<JobIndex, std::vector<GpuId>> plan_;
};

inline std::vector<GpuId> gpu_range(GpuId first, int count) {
  std::vector<GpuId> v;
  for (int i = 0; i < count; ++i) v.push_back(first + i);
  return v;
}

}  // namespace vnsim::testing
