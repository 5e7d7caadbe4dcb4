#include "vnsim/core/layout_perf.hpp"

#include <algorithm>
#include <limits>
#include <stdexcept>
#include <string>

#include "vnsim/core/perf_model.hpp"

namespace vnsim {
namespace {

double slowest_peak_flops(const Topology& topo, const GpuCatalog& gpus, const std::vector<GpuId>& placement) {
  double slowest = std::numeric_limits<double>::infinity();
  for (GpuId g : placement) slowest = std::min(slowest, gpus.at(topo.cluster().gpu(g).type).peak_flops);
  return slowest;
}

// The tp rings of one node's GPUs (one per TP rank) run at the same time and
// share the node's NIC, so a hop that leaves the node carries tp chunks.
double dp_allreduce_s(const Topology& topo, const std::vector<GpuId>& placement, const ParallelLayout& l,
                      double bytes) {
  if (l.dp <= 1) return 0;
  const double chunk = bytes / l.dp;
  double step_s = 0;
  for (int j = 0; j < l.dp; ++j) {
    const GpuId a = placement[static_cast<std::size_t>(j * l.tp)];
    const GpuId b = placement[static_cast<std::size_t>(((j + 1) % l.dp) * l.tp)];
    const PathInfo path = topo.path(a, b);
    const bool leaves_node = topo.cluster().gpu(a).node != topo.cluster().gpu(b).node;
    const double sharing = leaves_node ? l.tp : 1;
    step_s = std::max(step_s, path.latency_s + sharing * chunk / path.bottleneck_Bps);
  }
  return 2.0 * (l.dp - 1) * step_s;
}

}  // namespace

int tp_allreduces_per_layer(const TransformerModel& model) {
  return model.activation_recompute ? 6 : 4;
}

LayoutIteration layout_iteration_time(const Topology& topo, const GpuCatalog& gpus,
                                      const TransformerModel& model, const JobSpec& job,
                                      const std::vector<GpuId>& placement) {
  if (auto why = why_layout_invalid(job, topo.cluster())) throw std::invalid_argument(*why);
  if (placement.size() != static_cast<std::size_t>(job.gpus))
    throw std::invalid_argument("layout_iteration_time: placement has " + std::to_string(placement.size()) +
                                " GPUs, job requests " + std::to_string(job.gpus));
  LayoutIteration out;
  out.layout = layout_of(job);
  const ParallelLayout& l = out.layout;
  const double b = job.micro_batch_size;
  const double layers_per_stage = static_cast<double>(model.layers) / l.pp;

  const double flops = model.flops_per_sequence() * b / (static_cast<double>(l.tp) * l.pp);
  out.stage_compute_s = flops / (slowest_peak_flops(topo, gpus, placement) * model.achieved_flops_fraction);

  // Activations of one micro-batch at a layer boundary: s * b * h values.
  const double activation_bytes =
      static_cast<double>(model.seq_len) * b * model.hidden * TransformerModel::kActivationBytesPerValue;
  if (l.tp > 1) {
    const std::vector<GpuId> tp_group(placement.begin(), placement.begin() + l.tp);
    out.tp_comm_s = layers_per_stage * tp_allreduces_per_layer(model) *
                    ring_allreduce_time_s(topo, tp_group, activation_bytes);
  }
  if (l.pp > 1) {
    // Stage 0 -> stage 1 at the same (tp, dp) rank; the tp ranks each send
    // 1/tp of the activations at once over the same path, so the path's
    // bottleneck carries the whole tensor.
    const PathInfo path = topo.path(placement[0], placement[static_cast<std::size_t>(l.tp * l.dp)]);
    out.pp_p2p_s = 2.0 * (path.latency_s + activation_bytes / path.bottleneck_Bps);
  }
  out.step_s = out.stage_compute_s + out.tp_comm_s + out.pp_p2p_s;
  out.pipeline_s = static_cast<double>(l.micro_batches + l.pp - 1) * out.step_s;
  out.bubble_s = static_cast<double>(l.pp - 1) * out.step_s;
  const double shard_gradient_bytes = TransformerModel::kGradientBytesPerParameter * model.parameter_count() /
                                      (static_cast<double>(l.tp) * l.pp);
  out.dp_allreduce_s = dp_allreduce_s(topo, placement, l, shard_gradient_bytes);
  out.total_s = out.pipeline_s + out.dp_allreduce_s;
  return out;
}

double layout_iteration_s(const Topology& topo, const GpuCatalog& gpus, const JobSpec& job,
                          const std::vector<GpuId>& placement) {
  const TransformerModel* model = find_transformer_model(job.model);
  if (!model) throw std::invalid_argument(*why_layout_invalid(job, topo.cluster()));
  return layout_iteration_time(topo, gpus, *model, job, placement).total_s;
}

}  // namespace vnsim
