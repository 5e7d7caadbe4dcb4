// Launching parameter-server and DP x TP x PP jobs as SimGrid actors
// (ps_job.hpp, layout_job.hpp), in macro-iterations like the ring jobs.
#include "job_lifecycle.hpp"
#include "layout_job.hpp"
#include "ps_job.hpp"
#include "ring_job.hpp"
#include "vnsim/core/layout_perf.hpp"
#include "vnsim/core/parameter_server_job.hpp"

namespace vnsim::sim {

void JobLifecycle::launch_flow_job(JobIndex job) {
  JobState& s = state_[job];
  const RunTimes& run = parts_.clock.at(job);
  const JobSpec& spec = in_.jobs[job];
  const long long iterations = spec.iterations - s.iterations_done;
  const int m = in_.options.macro_iterations;
  // k of a contended macro-iteration (ReplayOptions::contended_macro_s).
  const auto contended_k = [&](long long k) {
    return contended_iterations_per_macro(k, in_.options.shorten_macro_when_contended,
                                          in_.options.contended_macro_s, run.iteration_s);
  };
  if (is_parameter_server_job(spec)) {
    const ModelParams& model = in_.models.at(spec.model);
    const PsJob ps = parameter_server_job(in_.topology, in_.gpu_catalog, model, spec, s.placement.gpus);
    PsSimJob sim;
    sim.job = job;
    sim.epoch = run.epoch;
    for (GpuId g : ps.servers) sim.servers.push_back(parts_.platform.gpu_hosts.at(g));
    for (std::size_t w = 0; w < ps.workers.size(); ++w) {
      simgrid::s4u::Host* host = parts_.platform.gpu_hosts.at(ps.workers[w]);
      sim.workers.push_back(host);
      sim.worker_flops.push_back(ps.worker_compute_s[w] * host->get_speed());
    }
    sim.gradient_bytes = ps.gradient_bytes;
    sim.async = spec.ps.async;
    sim.iterations = iterations;
    // Asynchronous updates come from every worker, so a worker's share of
    // the iterations sets its macro-iteration size.
    const auto workers = static_cast<long long>(ps.workers.size());
    sim.iterations_per_macro =
        iterations_per_macro(sim.async ? (iterations + workers - 1) / workers : iterations, m);
    sim.iteration_s = run.iteration_s;
    sim.iterations_per_macro_contended = contended_k(sim.iterations_per_macro);
    s.flow = parts_.actors.launch(std::move(sim));
    return;
  }
  const TransformerModel* model = find_transformer_model(spec.model);
  const LayoutIteration it =
      layout_iteration_time(in_.topology, in_.gpu_catalog, *model, spec, s.placement.gpus);
  LayoutSimJob sim;
  sim.job = job;
  sim.epoch = run.epoch;
  for (GpuId g : s.placement.gpus) sim.ranks.push_back(parts_.platform.gpu_hosts.at(g));
  sim.layout = it.layout;
  sim.local_step_s = it.stage_compute_s + it.tp_comm_s;
  sim.pipeline_steps = it.layout.micro_batches + it.layout.pp - 1;
  sim.pp_flow_bytes = it.pp_flow_bytes;
  sim.dp_chunk_bytes = it.dp_chunk_bytes;
  sim.iterations = iterations;
  sim.iterations_per_macro = iterations_per_macro(iterations, m);
  sim.iteration_s = run.iteration_s;
  sim.iterations_per_macro_contended = contended_k(sim.iterations_per_macro);
  s.flow = parts_.actors.launch(std::move(sim));
}

}  // namespace vnsim::sim
