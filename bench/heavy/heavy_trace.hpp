#pragma once
// The multi-node-heavy trace of bench/multi_node_heavy (issue 21, "No trap
// by default"), and the offered load that sets its arrival rate.
#include <cstddef>
#include <cstdint>
#include <ostream>
#include <vector>

#include "vnsim/core/cluster.hpp"
#include "vnsim/core/gpu_catalog.hpp"
#include "vnsim/core/job_spec.hpp"
#include "vnsim/core/model_catalog.hpp"
#include "vnsim/policies/offered_load.hpp"

namespace vnsim::bench {

// The bench's default arrivals: one every 30 s per 64 GPUs. On every cluster
// size the jobs of 1e7-1e8 iterations alone ask for far more than the
// cluster has (an offered load in the thousands), so jobs queue for years of
// simulated time.
double default_mean_gap_s(int cluster_gpus);

// `count` jobs: 25% take 2-4 whole nodes, the others 1 GPU to a whole node;
// iterations log-uniform in [1e2, 1e8]; a Pollux model chosen uniformly at
// its default local batch; Poisson arrivals every `mean_gap_s` on average.
// One random stream draws every job's shape and then its gap, and an
// exponential gap takes one uniform draw whatever its mean: for one seed the
// jobs are the same whatever `mean_gap_s`, and the gaps are the same
// uniforms scaled by it (only the arrival times change).
std::vector<JobSpec> heavy_trace(std::size_t count, std::uint64_t seed, int gpus_per_node, double mean_gap_s);

// alone_gpu_seconds and offered_load: vnsim/policies/offered_load.hpp.

// The mean arrival gap at which the cluster is offered `load` times its
// capacity: mean alone GPU-seconds per job / (load x cluster GPUs).
double mean_gap_for_load(double mean_alone_gpu_s, double load, int cluster_gpus);

// heavy_trace whose mean gap gives offered load `load`: the jobs are drawn
// once (at the default gap) to measure their mean work, then again with the
// gap that work asks for; by heavy_trace's one stream they are the same jobs.
std::vector<JobSpec> heavy_trace_at_load(std::size_t count, std::uint64_t seed, const Cluster& cluster,
                                         const GpuCatalog& gpus, const ModelCatalog& models, double load);

// One JSON object per job, as `vnsim replay --trace` reads them. The default
// trace prints submit_s with the stream's six significant digits (what the
// traces measured in docs/PERFORMANCE.md hold; its arrivals end near 8,000 s);
// `millisecond_submits` prints it to the millisecond it was drawn at, as
// arrivals spread over 1e8 s at a load the cluster keeps up with would
// otherwise fall on 100-s steps.
void write_heavy_jsonl(std::ostream& out, const std::vector<JobSpec>& jobs, bool millisecond_submits);

}  // namespace vnsim::bench
