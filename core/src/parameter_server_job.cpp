#include "vnsim/core/parameter_server_job.hpp"

#include <stdexcept>

#include "vnsim/core/parallel_layout.hpp"

namespace vnsim {

std::optional<std::string> why_parameter_server_invalid(const JobSpec& job) {
  const ParameterServerSpec& ps = job.ps;
  if (ps.servers < 0) return "ps_servers (" + std::to_string(ps.servers) + ") must be >= 0";
  if (ps.servers == 0) return std::nullopt;
  if (ps.servers >= job.gpus)
    return "parameter-server job needs a worker: ps_servers (" + std::to_string(ps.servers) +
           ") must be < gpus (" + std::to_string(job.gpus) + ")";
  if (uses_layout(job)) return "a parameter-server job cannot have a tp/pp layout or a transformer model";
  if (!(ps.straggler_probability >= 0 && ps.straggler_probability <= 1))
    return "straggler_probability must be in [0, 1]";
  if (!(ps.straggler_min_slowdown >= 1 && ps.straggler_max_slowdown >= ps.straggler_min_slowdown))
    return "need 1 <= straggler_min_slowdown <= straggler_max_slowdown";
  return std::nullopt;
}

PsJob parameter_server_job(const Topology& topo, const GpuCatalog& gpus, const ModelParams& model,
                           const JobSpec& job, const std::vector<GpuId>& placement) {
  if (auto why = why_parameter_server_invalid(job)) throw std::invalid_argument(*why);
  if (!is_parameter_server_job(job))
    throw std::invalid_argument("job '" + job.id + "' is not a parameter-server job");
  if (placement.size() != static_cast<std::size_t>(job.gpus))
    throw std::invalid_argument("parameter-server job '" + job.id + "': placement has " +
                                std::to_string(placement.size()) + " GPUs, job requests " +
                                std::to_string(job.gpus));
  const auto servers = static_cast<std::size_t>(job.ps.servers);
  PsJob out;
  out.servers.assign(placement.begin(), placement.begin() + static_cast<std::ptrdiff_t>(servers));
  out.workers.assign(placement.begin() + static_cast<std::ptrdiff_t>(servers), placement.end());
  out.gradient_bytes = model.gradient_bytes;
  const StragglerSpec stragglers{job.ps.straggler_probability, job.ps.straggler_min_slowdown,
                                 job.ps.straggler_max_slowdown, job.ps.straggler_seed};
  const std::vector<double> slowdown =
      draw_straggler_slowdowns(static_cast<int>(out.workers.size()), stragglers);
  const double local_batch = static_cast<double>(job.global_batch) / static_cast<double>(out.workers.size());
  for (std::size_t w = 0; w < out.workers.size(); ++w) {
    const double speed = gpus.at(topo.cluster().gpu(out.workers[w]).type).speed_for(model.name);
    out.worker_compute_s.push_back(slowdown[w] * model.micro_batch_time_s(local_batch) / speed);
  }
  return out;
}

double parameter_server_iteration_s(const Topology& topo, const GpuCatalog& gpus, const ModelParams& model,
                                    const JobSpec& job, const std::vector<GpuId>& placement) {
  const PsJob ps = parameter_server_job(topo, gpus, model, job, placement);
  if (!job.ps.async) return ps_sync_step_s(topo, ps);
  return 1.0 / ps_async_rate(topo, ps).updates_per_s;
}

}  // namespace vnsim
