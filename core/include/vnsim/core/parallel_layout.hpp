#pragma once
// A job's DP x TP x PP layout (Megatron-LM order: TP ranks are consecutive
// GPUs of the placement, then DP, then PP), its validity on a cluster and
// its memory per GPU. Timing: layout_perf.hpp.
#include <optional>
#include <string>

#include "vnsim/core/cluster.hpp"
#include "vnsim/core/job_spec.hpp"
#include "vnsim/core/transformer_models.hpp"

namespace vnsim {

struct ParallelLayout {
  int dp = 1;
  int tp = 1;
  int pp = 1;
  int micro_batches = 1;  // per pipeline and iteration: global_batch / (dp * micro_batch_size)
};

// True when the job is priced by the layout model: a transformer model, or
// any TP/PP degree above 1.
bool uses_layout(const JobSpec& job);

// nullopt when the layout is usable on `cluster`; otherwise the reason, e.g.
// "layout tp=8 x pp=3 does not divide the 100 requested GPUs",
// "tp=16 is larger than a node (at most 8 GPUs per node)".
std::optional<std::string> why_layout_invalid(const JobSpec& job, const Cluster& cluster);

// The layout of a job for which why_layout_invalid returned nullopt.
ParallelLayout layout_of(const JobSpec& job);

// "6 DP x 8 TP x 64 PP"
std::string describe(const ParallelLayout& layout);

// Resident bytes per GPU: 16 B of weight/optimizer state per parameter of
// the GPU's 1/(tp*pp) shard, plus activations of the micro-batches in flight
// under 1F1B (pp on the first stage). With full recomputation a stage keeps
// each layer's input (2*s*b*h bytes) plus one layer's full activations
// s*b*h*(34 + 5*a*s/h)/tp; without it every layer's s*b*h*(10 + 24/tp +
// 5*a*s/(h*tp)) (Korthikanti et al. 2022, "Reducing Activation
// Recomputation in Large Transformer Models", section 4).
double layout_memory_per_gpu_bytes(const TransformerModel& model, const JobSpec& job);

}  // namespace vnsim
