#pragma once
// Gandiva-style time-slicing (algorithms.md §10.2). While the cluster is
// oversubscribed, jobs take turns: at every slice boundary (multiples of
// slice_s) the jobs that have waited longest since they last ran get the
// GPUs, and running jobs give them up, the one that has held its GPUs
// longest first (suspend = PreemptJob, resume = StartJob). Between
// boundaries, free GPUs are filled in the same order without preemption.
// Packing (two jobs on one GPU) is not modelled (docs/POLICIES.md).
#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "vnsim/policies/placement.hpp"
#include "vnsim/policies/policy.hpp"

namespace vnsim {

struct GandivaParams {
  double slice_s = 60;  // Tiresias simulator's time_slicing_execute rotation
  std::string placement = "consolidated";
  std::uint64_t seed = 0;
};

class GandivaPolicy : public Policy {
 public:
  explicit GandivaPolicy(GandivaParams params = {});
  std::string name() const override { return "gandiva"; }
  std::vector<Decision> decide(const SchedulerInput& input) override;
  std::optional<double> next_timer_s(double now_s) const override;

 private:
  GandivaParams params_;
  std::unique_ptr<PlacementStrategy> placement_;
  std::vector<double> stopped_at_s_;  // by job index: when it was last suspended, -1 never
  std::vector<char> was_running_;
  double next_slice_s_ = std::numeric_limits<double>::infinity();
};

}  // namespace vnsim
