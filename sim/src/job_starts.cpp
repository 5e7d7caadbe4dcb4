// Starting a job on the driver's checked decision, beginning its run once set
// up, and what the policy is told about the running jobs.
#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "job_lifecycle.hpp"
#include "ring_job.hpp"
#include "vnsim/core/feasibility.hpp"
#include "vnsim/core/hetero_placement.hpp"
#include "vnsim/core/layout_perf.hpp"
#include "vnsim/core/parameter_server_job.hpp"
#include "vnsim/core/perf_model.hpp"

namespace vnsim::sim {
namespace {

bool on_one_node(const Cluster& cluster, const std::vector<GpuId>& gpus) {
  for (GpuId g : gpus)
    if (cluster.gpu(g).node != cluster.gpu(gpus.front()).node) return false;
  return true;
}

}  // namespace

void JobLifecycle::refresh_running(std::vector<RunningJob>& running, double now) const {
  for (RunningJob& r : running) {
    const JobState& s = state_[r.index];
    r.attained_gpu_s =
        s.attained_gpu_s + static_cast<double>(s.placement.gpus.size()) * (now - s.held_since_s);
    double end = parts_.clock.expected_end_s(r.index);
    if (s.phase == Phase::SettingUp)
      end = std::max(now, s.setup_end_s) + parts_.clock.at(r.index).estimated_total_s;
    r.estimated_remaining_s = std::max(0.0, end - now);
  }
}

RunningJob JobLifecycle::start(const StartJob& d, double now) {
  JobState& s = state_[d.job];
  const JobSpec& spec = in_.jobs[d.job];
  Placement placement = d.placement;
  if (placement.vn_per_gpu.empty())
    placement = spread_virtual_nodes(placement.gpus, parts_.batches.virtual_nodes_of(d.job));
  if (placement.gpus.empty() || placement.vn_per_gpu.size() != placement.gpus.size())
    throw std::logic_error("policy '" + in_.policy.name() + "' started job '" + spec.id +
                           "' with an empty placement or a vn_per_gpu of the wrong size");
  if (in_.options.heterogeneous_split && spans_gpu_types(in_.cluster, placement.gpus)) {
    // Re-split the policy's virtual nodes by type speed (same V and batch).
    int v = 0;
    for (int n : placement.vn_per_gpu) v += n;
    if (v >= static_cast<int>(placement.gpus.size()))
      placement = split_placement_by_type(in_.cluster, in_.gpu_catalog, in_.models.at(spec.model),
                                          placement.gpus, v, parts_.batches.batch_of(d.job));
  }
  // A policy may start a job on other virtual nodes than before (Pollux's
  // accumulation steps); for any other job this is its V.
  int virtual_nodes = 0;
  for (int n : placement.vn_per_gpu) virtual_nodes += n;
  parts_.batches.set_virtual_nodes(d.job, virtual_nodes);
  parts_.sharing.check_share(in_.policy.name(), d, placement.gpus);
  s.gpu_milli = d.gpu_milli > 0 ? static_cast<int>(d.gpu_milli) : kGpuMilli;
  view_.allocate(placement.gpus, d.job, s.gpu_milli);  // throws on over-commitment
  parts_.recorder.started(d.job, now, placement.gpus, s.gpu_milli);
  s.placement = placement;
  s.held_since_s = now;
  RunningJob running{d.job, &spec, std::move(placement), now, s.attained_gpu_s, -1};
  // Stopped with checkpoints on: restart the processes and load the last
  // checkpoint first (docs/ELASTICITY.md); or the model's start charge.
  const double setup_s = parts_.costs.start_s(spec, s.restore_pending);
  const bool set_up = s.restore_pending || setup_s > 0;
  s.restore_pending = false;
  if (set_up) {
    set_up_then_run(d.job, now, setup_s);
  } else {
    begin_run(d.job, now);
  }
  running.estimated_remaining_s = parts_.clock.at(d.job).estimated_total_s;
  rescale_tenants(s.placement.gpus, d.job, now);  // a new co-tenant slows the others
  return running;
}

// Progress starts on the job's current placement.
void JobLifecycle::begin_run(JobIndex job, double now) {
  JobState& s = state_[job];
  estimate_run(job);
  s.run_start_s = now;
  s.setup_end_s = -1;
  s.phase = Phase::Running;
  // Progress of a new run begins at the speed its co-tenants allow.
  parts_.clock.begin_run(job, parts_.sharing.slowest_rate(job, s.placement.gpus), now);
  if (on_one_node(in_.cluster, s.placement.gpus)) {
    // Its links carry only its own traffic, so the analytic time is exact
    // (at its co-tenants' speed when it shares GPUs).
    parts_.clock.end_after_run_time(job, now);
  } else {
    // DP x TP x PP and parameter-server jobs put their inter-node traffic on
    // the network too (docs/NETWORK.md).
    if (uses_layout(in_.jobs[job]) || is_parameter_server_job(in_.jobs[job])) {
      launch_flow_job(job);
    } else {
      parts_.rings.start(job, s.placement, in_.jobs[job].iterations - s.iterations_done, now);
    }
    parts_.rings.traffic_changed(now);  // the new traffic may share their links
  }
}

// Idle-network iteration time on the current placement, and the run time of
// the iterations not completed yet.
void JobLifecycle::estimate_run(JobIndex job) {
  JobState& s = state_[job];
  const JobSpec& spec = in_.jobs[job];
  const long long left = spec.iterations - s.iterations_done;
  if (uses_layout(spec)) {
    parts_.clock.estimate(job, layout_iteration_s(in_.topology, in_.gpu_catalog, spec, s.placement.gpus),
                          left);
    return;
  }
  if (is_parameter_server_job(spec)) {
    parts_.clock.estimate(job,
                          parameter_server_iteration_s(in_.topology, in_.gpu_catalog,
                                                       in_.models.at(spec.model), spec, s.placement.gpus),
                          left);
    return;
  }
  const int batch = parts_.batches.batch_of(job);
  if (s.timed_batch != batch || s.timed_placement.gpus != s.placement.gpus ||
      s.timed_placement.vn_per_gpu != s.placement.vn_per_gpu) {
    s.timed_iteration_s =
        iteration_time(in_.topology, in_.gpu_catalog, in_.models.at(spec.model), s.placement, batch).total_s;
    s.timed_placement = s.placement;
    s.timed_batch = batch;
  }
  parts_.clock.estimate(job, s.timed_iteration_s, left);
}

}  // namespace vnsim::sim
