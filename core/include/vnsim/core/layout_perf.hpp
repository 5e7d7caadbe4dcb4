#pragma once
// Idle-network iteration time of a DP x TP x PP transformer job (Megatron-LM
// style) from its architecture: per micro-batch and stage, compute + TP
// all-reduces (a reduce-scatter + all-gather pair each) + the stage-to-stage
// activation and gradient sends; 1F1B runs m micro-batches in
// (m + pp - 1) such steps (the (pp - 1) extra steps are the bubble, a
// fraction (pp - 1)/m of the ideal); then the DP gradient all-reduce. The
// PP sends and DP ring steps are priced as phases of flows (phase_time), the
// same flows the replay puts on SimGrid (sim/src/layout_job.cpp).
#include <vector>

#include "vnsim/core/collectives.hpp"
#include "vnsim/core/gpu_catalog.hpp"
#include "vnsim/core/parallel_layout.hpp"
#include "vnsim/core/topology.hpp"

namespace vnsim {

struct LayoutIteration {
  ParallelLayout layout;
  double stage_compute_s = 0;  // forward + backward (+ recompute) of one micro-batch on one stage
  double tp_comm_s = 0;        // the stage's TP all-reduces for one micro-batch
  double pp_p2p_s = 0;         // one activation send + one gradient send between adjacent stages
  double step_s = 0;           // stage_compute + tp_comm + pp_p2p
  double pipeline_s = 0;       // (m + pp - 1) * step
  double bubble_s = 0;         // (pp - 1) * step
  double dp_allreduce_s = 0;   // fp32 gradients of one GPU's shard over its DP group
  double total_s = 0;          // pipeline + DP all-reduce (no overlap)
  double pp_flow_bytes = 0;    // each GPU's share of one stage-to-stage send (activations / tp)
  double dp_chunk_bytes = 0;   // one DP ring step per GPU (its gradient shard / dp)
};

// The flows between a layout's GPUs, as positions in its placement (rank
// order). PP: every GPU of stage p sends `bytes` to the GPU of the same TP
// and DP rank in stage p + 1 (forward) or p - 1 (backward), all stages at
// once. DP: one step of the tp x pp rings, every GPU sending `bytes` to the
// next DP rank of its TP and PP rank.
Phase layout_pp_phase(const ParallelLayout& layout, double bytes, bool forward);
Phase layout_dp_ring_phase(const ParallelLayout& layout, double bytes);

// TP all-reduces per layer and micro-batch: 2 in the forward pass, 2 in the
// backward pass, and 2 more when the forward pass is recomputed.
int tp_allreduces_per_layer(const TransformerModel& model);

// `gpus`: the job's placement in rank order (rank = tp_rank + tp * (dp_rank
// + dp * pp_rank)). Throws std::invalid_argument when the job's layout is
// invalid for `gpus` (why_layout_invalid first).
LayoutIteration layout_iteration_time(const Topology& topo, const GpuCatalog& gpus,
                                      const TransformerModel& model, const JobSpec& job,
                                      const std::vector<GpuId>& placement);

// total_s of layout_iteration_time for a job that uses_layout(), its model
// looked up among the transformer models.
double layout_iteration_s(const Topology& topo, const GpuCatalog& gpus, const JobSpec& job,
                          const std::vector<GpuId>& placement);

}  // namespace vnsim
