#pragma once
// Whether a job can ever run on a cluster. A job that cannot is rejected at
// submission with the reason this returns, never silently dropped.
#include <optional>
#include <string>

#include "vnsim/core/cluster.hpp"
#include "vnsim/core/gpu_catalog.hpp"
#include "vnsim/core/job_spec.hpp"
#include "vnsim/core/model_catalog.hpp"

namespace vnsim {

// nullopt when the job fits an empty cluster; otherwise a one-line reason,
// e.g. "requests 256 GPUs, cluster has 128", "unknown model 'foo'",
// "GPU type 'Z100' not in cluster", "needs 40.0 GiB per GPU, largest allowed
// GPU (K80) has 12.0 GiB", "iterations must be > 0".
// The cluster's GPU types this job may run on: its type constraint (if any),
// and only types whose memory holds weights, optimizer state, gradient buffer
// and one micro-batch of activations. Unknown model: the empty set.
GpuTypeMask allowed_gpu_types(const JobSpec& job, const Cluster& cluster, const GpuCatalog& gpus,
                              const ModelCatalog& models);

std::optional<std::string> why_infeasible(const JobSpec& job, const Cluster& cluster, const GpuCatalog& gpus,
                                          const ModelCatalog& models);

// Gradient accumulation (virtual nodes) so that the job's batch fits GPU
// memory, as Pollux, Sia and VirtualFlow run such jobs: each of the job's
// GPUs runs the same number s of micro-batches per step, and V = gpus x s is
// the smallest that makes a micro-batch of ceil(global_batch / V) samples
// fit max_local_batch_for_memory (goodput.hpp) of the GPU type that bounds
// the job (its constraint, else the cluster's largest-memory type). Returns
// the job's own V when it already fits, or when the memory model does not
// apply (unknown model, parallel layout, no batch); nullopt when no V fits,
// i.e. the weights and min_local_batch samples do not fit.
std::optional<int> virtual_nodes_to_fit(const JobSpec& job, const Cluster& cluster, const GpuCatalog& gpus,
                                        const ModelCatalog& models);

}  // namespace vnsim
