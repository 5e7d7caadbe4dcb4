#pragma once
// Duration to work (docs/TRACES.md, "Duration to work"): traces record how
// long a job ran; the simulator needs a model and a number of iterations.
// A trace duration is read as the job's run time on its requested GPU count,
// alone on the given cluster, under consolidated placement.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "vnsim/core/cluster.hpp"
#include "vnsim/core/gpu_catalog.hpp"
#include "vnsim/core/job_spec.hpp"
#include "vnsim/core/model_catalog.hpp"

namespace vnsim {

// Pollux workload.py's model by GPU-hours: < 1 -> cifar10 or ncf (cifar10
// when gpus > 1: NCF runs on one GPU only); [1, 10) -> deepspeech2 or bert;
// [10, 100) -> yolov3; >= 100 -> imagenet. The choice between two options is
// a hash of (seed, job_id), so it does not depend on row order.
std::string model_for_gpu_hours(double gpu_hours, int gpus, std::uint64_t seed, const std::string& job_id);

// Samples a model trains on to the end of its Pollux profile
// (core/data/model_targets.json); nullopt for a model without a profile.
std::optional<double> model_target_samples(const std::string& model);

// Fills model (if empty), virtual_nodes (= gpus if 0), global_batch
// (default_local_batch x V if 0) and iterations of every job whose iterations
// are 0:
//  - trace_duration_s >= 0: iterations = max(1, round(duration / T_iter)),
//    T_iter = analytic iteration time alone on the empty cluster;
//  - otherwise, with a model that has a profile target (pollux-workload):
//    iterations = max(1, round(target_samples / global_batch)).
// Jobs that already have iterations are left untouched. Never drops a job.
void assign_work(std::vector<JobSpec>& jobs, const Cluster& cluster, const GpuCatalog& gpus,
                 const ModelCatalog& models, std::uint64_t seed);

// Jobs that already have iterations and a catalog model but no global batch
// (0, the JSONL default) get the model's default_local_batch x their virtual
// nodes, the batch assign_work gives a job whose work it derives. Other jobs
// are left untouched (an unknown model is rejected by the simulator with its
// reason).
void fill_default_batches(std::vector<JobSpec>& jobs, const ModelCatalog& models);

}  // namespace vnsim
