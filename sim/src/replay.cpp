#include "vnsim/sim/replay.hpp"

#include <exception>
#include <simgrid/s4u/Actor.hpp>
#include <stdexcept>
#include <string>
#include <vector>

#include "gpu_energy_meter.hpp"
#include "network_config.hpp"
#include "platform.hpp"
#include "replay_controller.hpp"
#include "replay_recorder.hpp"
#include "ring_timing.hpp"
#include "vnsim/core/parallel_layout.hpp"
#include "vnsim/core/parameter_server_job.hpp"

namespace vnsim {
namespace {

// Whether an Exec or a sleep can run on any GPU host in this replay (actor
// or quiet rings, parameter-server and DP x TP x PP jobs): then every GPU's
// energy counter is SimGrid's plugin's, which also updates at each of them
// (EnergyCounters).
sim::EnergyCounters energy_counters_for(const ReplayOptions& options, const std::vector<JobSpec>& jobs) {
  if (sim::ring_engine_of(options) != sim::RingEngine::Fluid) return sim::EnergyCounters::Plugin;
  for (const JobSpec& job : jobs)
    if (is_parameter_server_job(job) || uses_layout(job)) return sim::EnergyCounters::Plugin;
  return sim::EnergyCounters::Analytic;
}

// The controller runs on the first GPU's host (its timed waits are CPU
// actions there, which the plugin's counter of that host sees).
constexpr GpuId kControllerGpu = 0;

}  // namespace

ReplayResult run_replay(const Cluster& cluster, const GpuCatalog& gpu_catalog, const ModelCatalog& models,
                        const std::vector<JobSpec>& jobs, Policy& policy, const ReplayOptions& options) {
  if (options.macro_iterations < 0)
    throw std::invalid_argument(
        "ReplayOptions::macro_iterations must be >= 0 (0 = simulate every iteration)");
  simgrid::s4u::Engine& engine = sim::create_configured_engine();
  sim::enable_gpu_energy_plugin();
  const Topology topology(cluster);
  const sim::Platform platform = sim::build_platform(topology, gpu_catalog);
  const sim::ReplayInputs inputs{cluster, topology, gpu_catalog, models, jobs, policy, options};
  sim::ReplayRecorder recorder(jobs);
  std::vector<sim::ReplayRecorder::GpuRate> rates;
  rates.reserve(static_cast<std::size_t>(cluster.gpu_count()));
  std::vector<std::size_t> type_of_gpu;
  std::vector<sim::GpuWatts> watts_of_type;
  for (const std::string& type : cluster.gpu_types())
    watts_of_type.push_back({gpu_catalog.at(type).idle_watts, gpu_catalog.at(type).busy_watts});
  for (const GpuInfo& g : cluster.gpus()) {
    const GpuType& type = gpu_catalog.at(g.type);
    const bool spot = cluster.node_spec(g.node).spot;
    rates.push_back({static_cast<std::size_t>(cluster.type_index(g.type)), spot, type.busy_watts,
                     type.idle_watts, (spot ? type.spot_usd_per_gpu_hour : type.usd_per_gpu_hour) / 3600.0});
    type_of_gpu.push_back(rates.back().type);
  }
  recorder.set_accounting(cluster.gpu_types(), std::move(rates));
  sim::GpuEnergyMeter meter(platform, std::move(type_of_gpu), std::move(watts_of_type),
                            energy_counters_for(options, jobs), {kControllerGpu});
  recorder.set_listener(&meter);
  if (options.allocation_sink) recorder.set_allocation_sink(options.allocation_sink);
  sim::ReplayController controller(inputs, platform, recorder);

  // An exception must not escape an actor (SimGrid would abort the process):
  // catch it, stop the other actors and rethrow it here.
  std::exception_ptr failure;
  if (!jobs.empty()) {
    simgrid::s4u::Actor::create("controller", platform.gpu_hosts.at(kControllerGpu), [&] {
      try {
        controller.run();
        meter.finish();  // now: the clock is still at the replay's last event
      } catch (...) {
        failure = std::current_exception();
        simgrid::s4u::Actor::kill_all();
      }
    });
    engine.run();
  }
  if (failure) std::rethrow_exception(failure);
  recorder.set_measured_energy(meter.busy_j(), meter.idle_j());
  if (!recorder.all_done())
    throw std::logic_error("replay ended with " + std::to_string(jobs.size() - recorder.jobs_done()) +
                           " jobs neither completed nor rejected");
  return recorder.take(controller.last_event_s(), controller.decision_cost());
}

}  // namespace vnsim
