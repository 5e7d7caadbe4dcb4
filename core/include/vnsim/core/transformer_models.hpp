#pragma once
// GPT-style (decoder-only transformer) models for jobs with a DP x TP x PP
// layout. Their traffic is derived from the architecture (layers, hidden
// size, sequence length), which the Pollux-profiled ModelCatalog does not
// have. Sources of every entry: docs/NETWORK.md, "Parallel layouts".
#include <string>
#include <vector>

namespace vnsim {

struct TransformerModel {
  std::string name;
  int layers = 0;
  int hidden = 0;  // h
  int heads = 0;   // a
  int seq_len = 0;
  int vocab = 0;
  // Fraction of the GPU's dense fp16 peak that the transformer's kernels
  // reach; compute time = flops / (peak * this).
  double achieved_flops_fraction = 0.5;
  bool activation_recompute = true;  // full recomputation (Megatron-LM's setting for these runs)

  // 12*L*h^2 * (1 + 13/(12h) + (V+s)/(12*L*h)) (Narayanan et al., SC'21, eq. for P).
  double parameter_count() const;
  // Training flops of one sequence: c*s*L*h^2*(1 + s/(6h) + V/(16*L*h)),
  // c = 96 with full recomputation (4 passes), 72 without (3 passes).
  double flops_per_sequence() const;
  // Mixed-precision Adam: fp16 weights and gradients + fp32 master weights,
  // momentum and variance = 16 bytes per parameter (ZeRO paper's 16*Psi).
  static constexpr double kStateBytesPerParameter = 16;
  // Gradients are all-reduced in fp32 (Megatron-LM's default).
  static constexpr double kGradientBytesPerParameter = 4;
  // Activations and their gradients travel in fp16.
  static constexpr double kActivationBytesPerValue = 2;
};

// Built-in table (transformer_models.cpp); nullptr when unknown.
const TransformerModel* find_transformer_model(const std::string& name);
std::vector<std::string> transformer_model_names();

}  // namespace vnsim
