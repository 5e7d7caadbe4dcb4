#pragma once
// A trace's parameter-server job (JobSpec::ps) on a placement: which GPUs
// serve, each worker's compute per step (stragglers included), and its
// idle-network time per step. The first ps.servers GPUs of the placement are
// the servers; each of the others is a worker computing
// global_batch / workers samples per step.
#include <optional>
#include <string>
#include <vector>

#include "vnsim/core/gpu_catalog.hpp"
#include "vnsim/core/job_spec.hpp"
#include "vnsim/core/model_catalog.hpp"
#include "vnsim/core/parameter_server.hpp"
#include "vnsim/core/topology.hpp"

namespace vnsim {

inline bool is_parameter_server_job(const JobSpec& job) {
  return job.ps.servers > 0;
}

// nullopt for a usable PS job or a job that is not one; otherwise the
// reason, e.g. "parameter-server job needs a worker: ps_servers (4) must be
// < gpus (4)".
std::optional<std::string> why_parameter_server_invalid(const JobSpec& job);

// Throws std::invalid_argument when why_parameter_server_invalid says so or
// the placement does not have job.gpus GPUs.
PsJob parameter_server_job(const Topology& topo, const GpuCatalog& gpus, const ModelParams& model,
                           const JobSpec& job, const std::vector<GpuId>& placement);

// Idle-network seconds per iteration. Synchronous: one step of every worker
// (ps_sync_step_s). Asynchronous: an iteration is one update applied by the
// servers, so 1 / ps_async_rate().updates_per_s.
double parameter_server_iteration_s(const Topology& topo, const GpuCatalog& gpus, const ModelParams& model,
                                    const JobSpec& job, const std::vector<GpuId>& placement);

}  // namespace vnsim
