#include "vnsim/policies/alone_estimate.hpp"

#include "vnsim/core/consolidated_placement.hpp"
#include "vnsim/core/layout_perf.hpp"
#include "vnsim/core/parameter_server_job.hpp"
#include "vnsim/core/perf_model.hpp"

namespace vnsim {

const std::optional<std::vector<GpuId>>& AloneEstimator::placement(int count, GpuTypeMask allowed) {
  auto key = std::make_pair(count, allowed);
  auto it = placements_.find(key);
  if (it == placements_.end())
    it = placements_.emplace(key, consolidated_gpus_on_empty_cluster(topology_.cluster(), count, allowed))
             .first;
  return it->second;
}

double AloneEstimator::estimate_s(const JobSpec& job, GpuTypeMask allowed) {
  // Not cached: the servers, mode and stragglers are not part of the shape.
  if (is_parameter_server_job(job)) {
    const auto& gpus = placement(job.gpus, allowed);
    if (!gpus) return -1;
    return static_cast<double>(job.iterations) *
           parameter_server_iteration_s(topology_, gpus_, models_.at(job.model), job, *gpus);
  }
  ShapeKey key{job.model,        job.gpus, allowed, job.effective_virtual_nodes(),
               job.global_batch, job.tp,   job.pp,  job.micro_batch_size};
  auto it = iteration_s_.find(key);
  if (it == iteration_s_.end()) {
    const auto& gpus = placement(job.gpus, allowed);
    double t = -1;
    if (gpus) {
      if (uses_layout(job)) {
        t = layout_iteration_s(topology_, gpus_, job, *gpus);
      } else {
        const Placement p = spread_virtual_nodes(*gpus, job.effective_virtual_nodes());
        t = iteration_time(topology_, gpus_, models_.at(job.model), p, job.global_batch).total_s;
      }
    }
    it = iteration_s_.emplace(std::move(key), t).first;
  }
  return it->second < 0 ? -1 : static_cast<double>(job.iterations) * it->second;
}

}  // namespace vnsim
