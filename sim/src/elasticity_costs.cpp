#include "elasticity_costs.hpp"

#include <algorithm>

#include "vnsim/core/transformer_models.hpp"

namespace vnsim::sim {
namespace {

// Of mixed-precision Adam's 16 bytes per parameter (fp16 weights, fp16
// gradients, fp32 master weights, momentum and variance: 2+2+12, ZeRO,
// Rajbhandari et al., SC'20, section 3.1) the 2-byte fp16 gradient is
// rebuilt by the next backward pass, not saved or moved.
constexpr double kFp16GradientBytesPerParameter = 2;

}  // namespace

// The gradient buffer (one more gradient-sized copy in weight_state_bytes)
// is rebuilt, not moved. A DP x TP x PP job's model is a transformer of the
// layout model's table (not in the data-parallel catalog): its state is the
// whole model's, once, whatever its shards.
double ElasticityCosts::state_bytes(const JobSpec& job) const {
  if (const TransformerModel* t = find_transformer_model(job.model))
    return t->parameter_count() *
           (TransformerModel::kStateBytesPerParameter - kFp16GradientBytesPerParameter);
  const ModelParams& model = models_.at(job.model);
  return std::max(0.0, model.weight_state_bytes - model.gradient_bytes);
}

// A model calibration's start charge stands for the whole checkpoint,
// restart and restore (the Sia artifact's job.py charges rescale_time and
// nothing else on every placement change), so it replaces them.
std::optional<double> ElasticityCosts::start_charge_s(const JobSpec& job) const {
  if (const ModelParams* model = models_.find(job.model)) return model->start_charge_s;
  return std::nullopt;  // a DP x TP x PP job's transformer is not in the catalog
}

double ElasticityCosts::restore_s(const JobSpec& job) const {
  if (const auto charge = start_charge_s(job)) return *charge;
  return spec_.restart_delay_for(job.model) + state_bytes(job) / spec_.storage_bandwidth_Bps;
}

double ElasticityCosts::move_s(const JobSpec& job) const {
  if (const auto charge = start_charge_s(job)) return *charge;
  return restore_s(job) + save_s(job);
}

double ElasticityCosts::start_s(const JobSpec& job, bool restore_pending) const {
  if (const auto charge = start_charge_s(job)) return *charge;
  return restore_pending ? restore_s(job) : 0;
}

}  // namespace vnsim::sim
