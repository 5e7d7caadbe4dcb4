#pragma once
// A FIFO test policy that spreads each job across racks: the queue head takes
// free GPUs in a fixed order that visits node 0 of every rack, then node 1 of
// every rack, and so on, so every multi-node ring crosses the rack uplinks and
// shares NICs (the worst case for contention). Used by the macro-iteration
// fidelity test (sim/tests) and its benchmark (bench/macro_iterations.cpp),
// which must replay the same policy. Header-only; needs only core and policies.
#include <algorithm>
#include <string>
#include <tuple>
#include <vector>

#include "vnsim/core/cluster.hpp"
#include "vnsim/core/perf_model.hpp"
#include "vnsim/policies/policy.hpp"

namespace vnsim::testing {

class SpreadFifo : public Policy {
 public:
  // `nodes_per_rack`: the cluster's nodes per rack (every rack the same size).
  SpreadFifo(const Cluster& c, int nodes_per_rack) {
    for (const GpuInfo& g : c.gpus()) order_.push_back(g.id);
    auto key = [&](GpuId g) {
      const GpuInfo& x = c.gpu(g);
      return std::make_tuple(x.node % nodes_per_rack, x.rack, x.local_index);  // node inside its rack first
    };
    std::sort(order_.begin(), order_.end(), [&](GpuId a, GpuId b) { return key(a) < key(b); });
  }
  std::string name() const override { return "spread-fifo"; }
  std::vector<Decision> decide(const SchedulerInput& in) override {
    if (in.queued.empty()) return {};
    const QueuedJob& head = in.queued.front();
    std::vector<GpuId> take;
    for (GpuId g : order_)
      if (in.view->is_free(g) && static_cast<int>(take.size()) < head.spec->gpus) take.push_back(g);
    if (static_cast<int>(take.size()) < head.spec->gpus) return {};
    return {StartJob{head.index, spread_virtual_nodes(take, head.spec->effective_virtual_nodes())}};
  }

 private:
  std::vector<GpuId> order_;
};

}  // namespace vnsim::testing
