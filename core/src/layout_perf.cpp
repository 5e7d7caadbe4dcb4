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

}  // namespace

Phase layout_pp_phase(const ParallelLayout& l, double bytes, bool forward) {
  Phase phase;
  const int stride = l.tp * l.dp;
  for (int p = forward ? 0 : 1; p < (forward ? l.pp - 1 : l.pp); ++p)
    for (int i = 0; i < stride; ++i) {
      const int r = p * stride + i;
      phase.flows.push_back(Flow{r, forward ? r + stride : r - stride, bytes});
    }
  return phase;
}

Phase layout_dp_ring_phase(const ParallelLayout& l, double bytes) {
  Phase phase;
  for (int p = 0; p < l.pp; ++p)
    for (int d = 0; d < l.dp; ++d)
      for (int t = 0; t < l.tp; ++t)
        phase.flows.push_back(Flow{t + l.tp * (d + l.dp * p), t + l.tp * ((d + 1) % l.dp + l.dp * p), bytes});
  return phase;
}

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
    // Every stage sends at once; each GPU sends its 1/tp of the activations,
    // so a NIC carries the shares of all the node's GPUs whose peer is on
    // another node.
    out.pp_flow_bytes = activation_bytes / l.tp;
    out.pp_p2p_s = phase_time(topo, placement, layout_pp_phase(l, out.pp_flow_bytes, true)) +
                   phase_time(topo, placement, layout_pp_phase(l, out.pp_flow_bytes, false));
  }
  out.step_s = out.stage_compute_s + out.tp_comm_s + out.pp_p2p_s;
  out.pipeline_s = static_cast<double>(l.micro_batches + l.pp - 1) * out.step_s;
  out.bubble_s = static_cast<double>(l.pp - 1) * out.step_s;
  const double shard_gradient_bytes = TransformerModel::kGradientBytesPerParameter * model.parameter_count() /
                                      (static_cast<double>(l.tp) * l.pp);
  if (l.dp > 1) {
    // The tp x pp rings step together, so the rings of a node's GPUs share
    // its NICs.
    out.dp_chunk_bytes = shard_gradient_bytes / l.dp;
    out.dp_allreduce_s =
        2.0 * (l.dp - 1) * phase_time(topo, placement, layout_dp_ring_phase(l, out.dp_chunk_bytes));
  }
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
