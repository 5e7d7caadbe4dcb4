// LIFO, the example policy to copy (docs/CONTRIBUTING.md, "Adding a
// policy"): the whole policy, its parameters and its registration in one
// file. It serves the queue in last-come-first-served order, the
// non-preemptive LCFS discipline of queueing theory (M. Harchol-Balter,
// Performance Modeling and Design of Computer Systems, 2013, which analyses
// it beside FCFS): the newest queued job starts first. Each job that fits is started on the GPUs its
// placement strategy picks; one that does not fit is skipped and older jobs may still start (backfill).
// Non-preemptive. Against fifo-backfill it shows what the service order alone does to waiting times: short
// bursts of new jobs start at once while the oldest jobs may starve.
#include <memory>
#include <string>
#include <vector>

#include "vnsim/policies/placement.hpp"
#include "vnsim/policies/policy.hpp"
#include "vnsim/policies/policy_registration.hpp"

namespace vnsim {
namespace {

struct LifoParams {
  std::string placement = "consolidated";
  std::uint64_t seed = 0;  // for the random placement
};

class LifoPolicy : public Policy {
 public:
  explicit LifoPolicy(const LifoParams& params) : placement_(make_placement(params.placement, params.seed)) {}

  std::string name() const override { return "lifo"; }

  std::vector<Decision> decide(const SchedulerInput& input) override {
    // GPUs started in this call are taken here: the view changes only after
    // the engine applies the decisions.
    FreeGpus free(*input.view, input.running);
    std::vector<Decision> out;
    for (auto job = input.queued.rbegin(); job != input.queued.rend(); ++job) {  // newest first
      const JobSpec& spec = *job->spec;
      const GpuTypeMask allowed = job->allowed_types & free.cluster().type_mask(spec.gpu_type);
      auto gpus = placement_->place(free, spec.gpus, allowed);
      if (!gpus) continue;  // does not fit now: older jobs may still start
      free.take(*gpus);
      out.emplace_back(
          StartJob{job->index, spread_virtual_nodes(std::move(*gpus), spec.effective_virtual_nodes())});
    }
    return out;
  }

 private:
  std::unique_ptr<PlacementStrategy> placement_;
};

const PolicyRegistration kLifo("lifo", 130,
                               ParamTable<LifoParams>().placement(&LifoParams::placement, &LifoParams::seed),
                               [](const LifoParams& p) { return std::make_unique<LifoPolicy>(p); });

}  // namespace
}  // namespace vnsim
