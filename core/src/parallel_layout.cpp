#include "vnsim/core/parallel_layout.hpp"

#include <algorithm>

namespace vnsim {

bool uses_layout(const JobSpec& job) {
  return job.tp != 1 || job.pp != 1 || find_transformer_model(job.model) != nullptr;
}

std::optional<std::string> why_layout_invalid(const JobSpec& job, const Cluster& cluster) {
  const std::string shape = "tp=" + std::to_string(job.tp) + " x pp=" + std::to_string(job.pp);
  if (job.tp < 1 || job.pp < 1) return "layout " + shape + ": tp and pp must be >= 1";
  if (job.micro_batch_size < 1) return "micro_batch_size must be >= 1";
  const TransformerModel* model = find_transformer_model(job.model);
  if (!model) {
    std::string known;
    for (const auto& n : transformer_model_names()) known += (known.empty() ? "" : ", ") + n;
    return "layout " + shape + " needs a transformer model (" + known + "), '" + job.model +
           "' is profiled for data parallelism only";
  }
  if (job.gpus % (job.tp * job.pp) != 0)
    return "layout " + shape + " does not divide the " + std::to_string(job.gpus) + " requested GPUs";
  const int per_node = cluster.max_gpus_per_node();
  if (job.tp > per_node)
    return "tp=" + std::to_string(job.tp) + " is larger than a node (at most " + std::to_string(per_node) +
           " GPUs per node)";
  if (model->layers % job.pp != 0)
    return "pp=" + std::to_string(job.pp) + " does not divide the " + std::to_string(model->layers) +
           " layers of " + model->name;
  const int dp = job.gpus / (job.tp * job.pp);
  if (job.global_batch % (dp * job.micro_batch_size) != 0)
    return "global_batch " + std::to_string(job.global_batch) + " is not a multiple of dp (" +
           std::to_string(dp) + ") x micro_batch_size (" + std::to_string(job.micro_batch_size) + ")";
  return std::nullopt;
}

ParallelLayout layout_of(const JobSpec& job) {
  ParallelLayout l;
  l.tp = job.tp;
  l.pp = job.pp;
  l.dp = job.gpus / (job.tp * job.pp);
  l.micro_batches = job.global_batch / (l.dp * job.micro_batch_size);
  return l;
}

std::string describe(const ParallelLayout& layout) {
  return std::to_string(layout.dp) + " DP x " + std::to_string(layout.tp) + " TP x " +
         std::to_string(layout.pp) + " PP";
}

double layout_memory_per_gpu_bytes(const TransformerModel& model, const JobSpec& job) {
  const double tp = job.tp, pp = job.pp;
  const double s = model.seq_len, b = job.micro_batch_size, h = model.hidden, a = model.heads;
  const double layers_per_stage = model.layers / pp;
  const double state = TransformerModel::kStateBytesPerParameter * model.parameter_count() / (tp * pp);
  // 1F1B: the first stage holds the activations of pp micro-batches.
  const double in_flight = std::min<double>(pp, job.global_batch / (job.gpus / (tp * pp) * b));
  double activations = 0;
  if (model.activation_recompute) {
    const double one_layer_full = s * b * h * (34.0 + 5.0 * a * s / h) / tp;
    activations = in_flight * layers_per_stage * 2.0 * s * b * h + one_layer_full;
  } else {
    activations = in_flight * layers_per_stage * s * b * h * (10.0 + 24.0 / tp + 5.0 * a * s / (h * tp));
  }
  return state + activations;
}

}  // namespace vnsim
