#include "elasticity_costs.hpp"

#include <algorithm>

namespace vnsim::sim {

// The gradient buffer (one more gradient-sized copy in weight_state_bytes)
// is rebuilt, not moved.
double ElasticityCosts::state_bytes(const JobSpec& job) const {
  const ModelParams& model = models_.at(job.model);
  return std::max(0.0, model.weight_state_bytes - model.gradient_bytes);
}

double ElasticityCosts::restore_s(const JobSpec& job) const {
  return spec_.restart_delay_for(job.model) + state_bytes(job) / spec_.storage_bandwidth_Bps;
}

}  // namespace vnsim::sim
