// Stopping a run: preemption and revocation (with checkpoints, the work
// since the last one is lost), elastic resize (in place and
// checkpoint-restart), and the set-up or restore before a run
// (docs/ELASTICITY.md).
#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "gpu_set.hpp"
#include "job_lifecycle.hpp"
#include "state_broadcast.hpp"
#include "vnsim/core/units.hpp"

namespace vnsim::sim {

// The job holds its GPUs and makes no progress for `delay_s`; then it runs.
void JobLifecycle::set_up_then_run(JobIndex job, double now, double delay_s) {
  JobState& s = state_[job];
  estimate_run(job);
  s.phase = Phase::SettingUp;
  s.setup_end_s = now + delay_s;
  parts_.clock.set_up_until(job, s.setup_end_s);
}

// Ends the current run at `now` and credits its progress: every whole
// iteration, or, when `lose_since_checkpoint` and checkpoints are on, only the
// iterations up to the last checkpoint (written every checkpoint_interval_s
// of progress since the run began). For a ring job the iterations at the
// checkpoint are its iterations now scaled by the share of the run's time
// before the checkpoint. Returns true when every iteration is done.
bool JobLifecycle::stop_run(JobIndex job, double now, bool lose_since_checkpoint) {
  JobState& s = state_[job];
  const JobSpec& spec = in_.jobs[job];
  const bool progressing = s.phase == Phase::Running;
  const double elapsed = progressing ? std::max(0.0, now - s.run_start_s) : 0.0;
  const double interval = in_.options.checkpoint_interval_s;
  const bool checkpointed = lose_since_checkpoint && interval > 0;
  const double kept_s = checkpointed ? std::floor(elapsed / interval) * interval : elapsed;
  const RunTimes& run = parts_.clock.at(job);
  long long done_now = 0;
  if (parts_.rings.holds(job)) {
    const long long all = parts_.rings.stop(job, now, /*count=*/progressing);
    if (progressing)
      done_now = !checkpointed ? all
                 : elapsed > 0
                     ? static_cast<long long>(std::floor(static_cast<double>(all) * kept_s / elapsed))
                     : 0;
  } else if (s.flow) {
    if (progressing) {
      const long long all = s.flow->iterations_done(now);
      done_now = !checkpointed ? all
                 : elapsed > 0
                     ? static_cast<long long>(std::floor(static_cast<double>(all) * kept_s / elapsed))
                     : 0;
    }
    s.flow->stop();
    parts_.actors.retire(std::move(s.flow));
  } else if (progressing && run.iteration_s > 0) {
    // A run slowed by GPU co-tenants progressed less than its elapsed time;
    // an unshared run keeps the exact elapsed-time arithmetic.
    const double work_s = !run.progress.slowed() ? kept_s
                          : elapsed > 0          ? run.progress.progress_s(now) * kept_s / elapsed
                                                 : 0.0;
    done_now = static_cast<long long>(std::floor(work_s / run.iteration_s));
  }
  if (checkpointed && elapsed > kept_s) parts_.recorder.lost_work(job, elapsed - kept_s);
  s.iterations_done = std::min<long long>(spec.iterations, s.iterations_done + std::max(0LL, done_now));
  parts_.clock.stop(job);  // the stopped run's pending end (heap entry or report) is now stale
  s.setup_end_s = -1;
  return s.iterations_done >= spec.iterations;
}

// By default zero-cost preemption (as the Tiresias simulator): the GPUs are
// free at once and the job keeps its whole completed iterations. What is lost
// is the partial iteration of an analytic job and of a ring job (whose
// in-flight macro-iteration is credited by time: ring_iterations_done)
// (docs/ELASTICITY.md, "Checkpoints"). With a checkpoint interval
// the job keeps only the work up to its last checkpoint (stop_run).
void JobLifecycle::preempt(JobIndex job, double now) {
  stop_and_requeue(job, now, AllocationCause::Preempt);
}

// A preemption or a revocation: the GPUs are free at once and the job goes
// back to the queue.
void JobLifecycle::stop_and_requeue(JobIndex job, double now, AllocationCause cause) {
  JobState& s = state_[job];
  if (stop_run(job, now, /*lose_since_checkpoint=*/true)) {
    // Every iteration was done: the job completes now instead (its end
    // report may be on its way at this very instant).
    finish_job(job, now);
    return;
  }
  s.attained_gpu_s += static_cast<double>(s.placement.gpus.size()) * (now - s.held_since_s);
  view_.release(s.placement.gpus, job);
  parts_.recorder.preempted(job, now, s.placement.gpus, cause);
  rescale_tenants(s.placement.gpus, job, now);
  if (in_.options.checkpoint_interval_s > 0) s.restore_pending = true;
  s.phase = Phase::Queued;
  parts_.driver.requeue(job, JobProgress{s.attained_gpu_s, s.iterations_done});
}

// A planned resize keeps every whole iteration (the job stops at a batch
// boundary; a checkpoint-restart resize saves first). In place, the GPUs that
// join receive the state over the network after a communicator rebuild; a
// checkpoint-restart resize saves, restarts the processes and restores
// through the storage bandwidth. The job holds its new GPUs throughout; the
// GPUs it gives up are free at once.
void JobLifecycle::resize(const ResizeJob& d, double now) {
  const std::string who = "policy '" + in_.policy.name() + "' resized job " + std::to_string(d.job);
  JobState& s = state_[d.job];
  const JobSpec& spec = in_.jobs[d.job];
  const int v = parts_.batches.virtual_nodes_of(d.job);
  Placement placement = d.placement;
  if (placement.gpus.empty()) throw std::logic_error(who + " ('" + spec.id + "') to no GPU");
  if (placement.vn_per_gpu.empty()) placement = spread_virtual_nodes(placement.gpus, v);
  int vn_total = 0;
  for (int n : placement.vn_per_gpu) vn_total += n;
  // An adaptive-batch resize (one that names a global batch) may change V
  // with it: Pollux picks GPUs and accumulation steps together.
  const bool new_batch = d.global_batch > 0;
  if (placement.vn_per_gpu.size() != placement.gpus.size() || (vn_total != v && !new_batch))
    throw std::logic_error(who + " ('" + spec.id + "') with a vn_per_gpu that does not spread its " +
                           std::to_string(v) + " virtual nodes over the new GPUs");
  if (d.global_batch < 0) throw std::logic_error(who + " ('" + spec.id + "') with a negative global batch");
  const int batch = d.global_batch > 0 ? d.global_batch : parts_.batches.batch_of(d.job);
  const ModelParams& model = in_.models.at(spec.model);
  const double needed = model.memory_needed_bytes(static_cast<double>(batch) / vn_total);
  for (GpuId g : placement.gpus) {
    const GpuType& type = in_.gpu_catalog.at(in_.cluster.gpu(g).type);
    if (needed > type.memory_bytes)
      throw std::logic_error(who + " ('" + spec.id + "') onto GPU " + std::to_string(g) + " (" + type.name +
                             "), whose memory cannot hold it: needs " +
                             std::to_string(needed / units::gib_to_bytes(1)) + " GiB, has " +
                             std::to_string(type.memory_bytes / units::gib_to_bytes(1)) + " GiB");
  }

  const std::vector<GpuId> old_gpus = s.placement.gpus;
  const std::vector<GpuId> joining = gpus_not_in(placement.gpus, old_gpus);
  if (stop_run(d.job, now, /*lose_since_checkpoint=*/false)) {
    finish_job(d.job, now);
    return;
  }
  if (new_batch) s.iterations_done = parts_.batches.change_batch(d.job, batch, vn_total, s.iterations_done);
  view_.release(gpus_not_in(old_gpus, placement.gpus), d.job);
  view_.allocate(joining, d.job, s.gpu_milli);  // throws on over-commitment
  parts_.recorder.resized(d.job, now, old_gpus, placement.gpus);
  rescale_tenants(old_gpus, d.job, now);
  rescale_tenants(joining, d.job, now);
  s.attained_gpu_s += static_cast<double>(old_gpus.size()) * (now - s.held_since_s);
  s.held_since_s = now;
  parts_.batches.set_batch(d.job, batch);
  s.placement = placement;
  parts_.driver.moved(d.job, placement);

  if (d.mode == ResizeMode::CheckpointRestart) {
    set_up_then_run(d.job, now, parts_.costs.move_s(spec));
    return;
  }
  if (joining.empty()) {  // a shrink only rebuilds the communicator
    set_up_then_run(d.job, now, parts_.costs.communicator_setup_s());
    return;
  }
  // Joining GPUs take turns over the GPUs that stay (all old ones when none
  // stays), so the sources share the sending as in VirtualFlow's allgather.
  std::vector<GpuId> sources;
  for (GpuId g : old_gpus)
    if (holds(placement.gpus, g)) sources.push_back(g);
  if (sources.empty()) sources = old_gpus;
  StateBroadcast b;
  b.job = d.job;
  b.epoch = parts_.clock.epoch(d.job);
  b.setup_s = parts_.costs.communicator_setup_s();
  b.bytes_per_receiver = parts_.costs.state_bytes(spec);
  for (std::size_t i = 0; i < joining.size(); ++i)
    b.flows.emplace_back(parts_.platform.gpu_hosts.at(sources[i % sources.size()]),
                         parts_.platform.gpu_hosts.at(joining[i]));
  estimate_run(d.job);
  s.phase = Phase::SettingUp;
  parts_.clock.set_up_until_reported(d.job);
  s.setup_end_s = now + parts_.costs.communicator_setup_s();  // at least; the flows add their time
  parts_.actors.launch(std::move(b));
}

}  // namespace vnsim::sim
