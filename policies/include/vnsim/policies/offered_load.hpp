#pragma once
// How much work a trace asks of a cluster while its jobs arrive. A trace
// that asks thousands of times what the cluster has is a queue that drains
// for years of simulated time, and every round-based policy re-decides over
// that whole queue every round: the replay says so up front
// (experiments/cli/replay_command.cpp), and bench/multi_node_heavy sets its
// arrival rate with it.
#include <vector>

#include "vnsim/core/cluster.hpp"
#include "vnsim/core/gpu_catalog.hpp"
#include "vnsim/core/job_spec.hpp"
#include "vnsim/core/model_catalog.hpp"

namespace vnsim {

// GPU-seconds of work of the jobs, each as GPUs x iterations x its iteration
// time alone: consolidated on an empty cluster, idle network (AloneEstimator,
// what policies see as a queued job's estimated run time). Jobs without a
// placement on the cluster count 0.
double alone_gpu_seconds(const std::vector<JobSpec>& jobs, const Cluster& cluster, const GpuCatalog& gpus,
                         const ModelCatalog& models);

// Offered load: work over what the cluster offers while the jobs arrive,
// alone GPU-seconds / (cluster GPUs x (last submission - first)); 0 where
// the jobs arrive at one instant (fewer than two, or all at once).
double offered_load(const std::vector<JobSpec>& jobs, double alone_gpu_s, int cluster_gpus);

}  // namespace vnsim
