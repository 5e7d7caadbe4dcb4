#include "vnsim/core/transformer_models.hpp"

#include <array>

namespace vnsim {
namespace {

// name, L, h, a, s, V, achieved fraction of peak, recompute.
// megatron-1t: Narayanan et al., "Efficient Large-Scale Language Model
// Training on GPU Clusters Using Megatron-LM" (SC'21), Table 1: 128 layers,
// hidden 25600, 160 heads, trained on 3072 A100s as 6 DP x 8 TP x 64 PP with
// batch 3072, 502 PFLOP/s = 52% of peak per GPU, end to end (so communication
// and the bubble are inside the 52%: using it as the kernel efficiency makes
// our estimates pessimistic). All models: vocabulary 51200, sequence 2048
// (same paper). gpt3-175b and gpt-1.3b: layers, hidden and heads of GPT-3
// and GPT-3 XL (Brown et al. 2020, Table 2.1), with the same 52%.
const std::array<TransformerModel, 3> kModels = {{
    {"gpt-1.3b", 24, 2048, 16, 2048, 51200, 0.52, true},
    {"gpt3-175b", 96, 12288, 96, 2048, 51200, 0.52, true},
    {"megatron-1t", 128, 25600, 160, 2048, 51200, 0.52, true},
}};

}  // namespace

double TransformerModel::parameter_count() const {
  const double l = layers, h = hidden;
  return 12.0 * l * h * h * (1.0 + 13.0 / (12.0 * h) + (vocab + seq_len) / (12.0 * l * h));
}

double TransformerModel::flops_per_sequence() const {
  const double l = layers, h = hidden, s = seq_len;
  const double passes_factor = activation_recompute ? 96.0 : 72.0;
  return passes_factor * s * l * h * h * (1.0 + s / (6.0 * h) + vocab / (16.0 * l * h));
}

const TransformerModel* find_transformer_model(const std::string& name) {
  for (const auto& m : kModels)
    if (m.name == name) return &m;
  return nullptr;
}

std::vector<std::string> transformer_model_names() {
  std::vector<std::string> out;
  for (const auto& m : kModels) out.push_back(m.name);
  return out;
}

}  // namespace vnsim
