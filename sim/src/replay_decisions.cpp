// Applying the policy's decisions: the only place jobs start, are preempted
// or are rejected after admission.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <stdexcept>
#include <string>
#include <type_traits>

#include "replay_controller.hpp"
#include "ring_job.hpp"
#include "vnsim/core/feasibility.hpp"
#include "vnsim/core/perf_model.hpp"

namespace vnsim::sim {
namespace {

// A policy that keeps answering with decisions at one instant is looping.
constexpr int kMaxDecideRoundsPerInstant = 10000;

bool on_one_node(const Cluster& cluster, const std::vector<GpuId>& gpus) {
  for (GpuId g : gpus)
    if (cluster.gpu(g).node != cluster.gpu(gpus.front()).node) return false;
  return true;
}

}  // namespace

void ReplayController::run_policy(double now) {
  for (int round = 0;; ++round) {
    if (round == kMaxDecideRoundsPerInstant)
      throw std::logic_error("policy '" + in_.policy.name() + "' returned decisions " +
                             std::to_string(kMaxDecideRoundsPerInstant) +
                             " times in a row at t=" + std::to_string(now) + "; it is looping");
    refresh_running(now);
    // The engine's vectors are lent to the policy for the call instead of
    // copied: decide() runs on every event and the queue can be long.
    SchedulerInput input;
    input.now_s = now;
    input.view = &view_;
    input.queued = std::move(queued_);
    input.running = std::move(running_);
    const auto t0 = std::chrono::steady_clock::now();
    std::vector<Decision> decisions = in_.policy.decide(input);
    scheduler_wall_s_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    queued_ = std::move(input.queued);
    running_ = std::move(input.running);
    if (decisions.empty()) return;
    for (const Decision& d : decisions) apply(d, now);
    std::erase_if(queued_, [&](const QueuedJob& q) { return state_[q.index].phase != Phase::Queued; });
  }
}

void ReplayController::refresh_running(double now) {
  for (RunningJob& r : running_) {
    const JobState& s = state_[r.index];
    r.attained_gpu_s =
        s.attained_gpu_s + static_cast<double>(s.placement.gpus.size()) * (now - s.run_start_s);
    const double end = s.analytic_end_s >= 0 ? s.analytic_end_s : s.run_start_s + s.estimated_total_s;
    r.estimated_remaining_s = std::max(0.0, end - now);
  }
}

void ReplayController::apply(const Decision& d, double now) {
  std::visit(
      [&](const auto& x) {
        using T = std::decay_t<decltype(x)>;
        if constexpr (std::is_same_v<T, StartJob>) {
          start_job(x, now);
        } else if constexpr (std::is_same_v<T, RejectJob>) {
          reject_job(x, now);
        } else if constexpr (std::is_same_v<T, PreemptJob>) {
          preempt_job(x, now);
        } else {
          throw std::logic_error("policy '" + in_.policy.name() +
                                 "': ResizeJob is not supported by the engine yet");
        }
      },
      d);
  last_event_s_ = std::max(last_event_s_, now);
}

ReplayController::JobState& ReplayController::queued_job(JobIndex job, const char* action) {
  if (job >= state_.size() || state_[job].phase != Phase::Queued)
    throw std::logic_error(
        "policy '" + in_.policy.name() + "' tried to " + action + " job " + std::to_string(job) +
        (job < state_.size() ? " ('" + in_.jobs[job].id + "')" : std::string()) + ", which is not queued");
  return state_[job];
}

void ReplayController::start_job(const StartJob& d, double now) {
  JobState& s = queued_job(d.job, "start");
  const JobSpec& spec = in_.jobs[d.job];
  Placement placement = d.placement;
  if (placement.vn_per_gpu.empty())
    placement = spread_virtual_nodes(placement.gpus, spec.effective_virtual_nodes());
  if (placement.gpus.empty() || placement.vn_per_gpu.size() != placement.gpus.size())
    throw std::logic_error("policy '" + in_.policy.name() + "' started job '" + spec.id +
                           "' with an empty placement or a vn_per_gpu of the wrong size");
  view_.allocate(placement.gpus, d.job);  // throws on over-commitment
  recorder_.started(d.job, now, placement.gpus);

  const IterationBreakdown it =
      iteration_time(in_.topology, in_.gpu_catalog, in_.models.at(spec.model), placement, spec.global_batch);
  // A resumed job runs only the iterations it has not completed yet.
  const long long remaining = spec.iterations - s.iterations_done;
  s.iteration_s = it.total_s;
  s.run_start_s = now;
  s.estimated_total_s = static_cast<double>(remaining) * it.total_s;
  s.placement = placement;
  if (on_one_node(in_.cluster, placement.gpus)) {
    // Its links carry only its own traffic, so the analytic time is exact.
    s.analytic_end_s = now + static_cast<double>(remaining) * it.total_s;
    analytic_ends_.push(AnalyticEnd{s.analytic_end_s, d.job, s.epoch});
  } else {
    s.analytic_end_s = -1;
    launch_ring(d.job, placement);
  }
  s.phase = Phase::Running;
  running_.push_back(
      RunningJob{d.job, &spec, std::move(placement), now, s.attained_gpu_s, s.estimated_total_s});
}

// Zero-cost preemption (as the Tiresias simulator): the GPUs are free at once
// and the job keeps its whole completed iterations. What is lost is the
// partial iteration of an analytic job and of a ring job (whose in-flight
// macro-iteration is credited by time: ring_iterations_done) (docs/POLICIES.md,
// "Preemption in the engine").
void ReplayController::preempt_job(const PreemptJob& d, double now) {
  if (d.job >= state_.size() || state_[d.job].phase != Phase::Running)
    throw std::logic_error("policy '" + in_.policy.name() + "' tried to preempt job " +
                           std::to_string(d.job) +
                           (d.job < state_.size() ? " ('" + in_.jobs[d.job].id + "')" : std::string()) +
                           ", which is not running");
  JobState& s = state_[d.job];
  const JobSpec& spec = in_.jobs[d.job];
  long long done_now = 0;
  if (s.ring) {
    done_now = ring_iterations_done(*s.ring, now, s.iteration_s);
    stop_ring_job(*s.ring);
    stopped_rings_.push_back(std::move(s.ring));
  } else if (s.iteration_s > 0) {
    done_now = static_cast<long long>(std::floor((now - s.run_start_s) / s.iteration_s));
  }
  s.iterations_done = std::min<long long>(spec.iterations, s.iterations_done + std::max(0LL, done_now));
  std::erase_if(running_, [&](const RunningJob& r) { return r.index == d.job; });
  if (s.iterations_done >= spec.iterations) {
    // Every iteration was done: the job completes now instead (its end
    // report may be on its way at this very instant).
    finish_job(d.job, now);
    return;
  }
  ++s.epoch;  // the stopped run's pending end (heap entry or report) is now stale
  s.attained_gpu_s += static_cast<double>(s.placement.gpus.size()) * (now - s.run_start_s);
  s.analytic_end_s = -1;
  view_.release(s.placement.gpus, d.job);
  recorder_.preempted(d.job, now, s.placement.gpus);
  s.phase = Phase::Queued;
  requeue(d.job);
}

// Back into the queue at its submission-order place, with its attained
// service and the alone-estimate scaled to the iterations left.
void ReplayController::requeue(JobIndex job) {
  const JobSpec& spec = in_.jobs[job];
  const JobState& s = state_[job];
  const GpuTypeMask allowed = allowed_gpu_types(spec, in_.cluster, in_.gpu_catalog, in_.models);
  double estimate = estimator_.estimate_s(spec, allowed);
  if (estimate >= 0 && spec.iterations > 0)
    estimate *=
        static_cast<double>(spec.iterations - s.iterations_done) / static_cast<double>(spec.iterations);
  const auto pos =
      std::lower_bound(queued_.begin(), queued_.end(), arrival_rank_[job],
                       [&](const QueuedJob& q, std::size_t rank) { return arrival_rank_[q.index] < rank; });
  queued_.insert(pos, QueuedJob{job, &spec, s.attained_gpu_s, estimate, allowed});
}

void ReplayController::reject_job(const RejectJob& d, double now) {
  JobState& s = queued_job(d.job, "reject");
  s.phase = Phase::Done;
  recorder_.rejected(d.job, now, d.reason);
}

void ReplayController::launch_ring(JobIndex job, const Placement& placement) {
  const JobSpec& spec = in_.jobs[job];
  const ModelParams& model = in_.models.at(spec.model);
  const double local_batch = static_cast<double>(spec.global_batch) / spec.effective_virtual_nodes();
  RingJob ring;
  ring.job = job;
  ring.epoch = state_[job].epoch;
  ring.gradient_bytes = model.gradient_bytes;
  ring.iterations = spec.iterations - state_[job].iterations_done;
  ring.iterations_per_macro = iterations_per_macro(ring.iterations, in_.options.macro_iterations);
  for (std::size_t r = 0; r < placement.gpus.size(); ++r) {
    simgrid::s4u::Host* host = platform_.gpu_hosts.at(placement.gpus[r]);
    const double speed = in_.gpu_catalog.at(in_.cluster.gpu(placement.gpus[r]).type).speed_for(model.name);
    const double seconds = placement.vn_per_gpu[r] * model.micro_batch_time_s(local_batch) / speed;
    ring.ranks.push_back(host);
    ring.flops_per_iteration.push_back(seconds * host->get_speed());
  }
  state_[job].ring = launch_ring_job(std::move(ring), channel_);
}

}  // namespace vnsim::sim
