#include "vnsim/real_exec/controller.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>
#include <type_traits>

#include "vnsim/core/consolidated_placement.hpp"
#include "vnsim/core/feasibility.hpp"
#include "vnsim/core/perf_model.hpp"

namespace vnsim::real_exec {
namespace {

// A policy that keeps answering with decisions at one instant is looping.
constexpr int kMaxDecideRounds = 10000;

nlohmann::json gpu_list(const std::vector<GpuId>& gpus) {
  return nlohmann::json(gpus);
}

}  // namespace

Controller::Controller(const Cluster& cluster, const GpuCatalog& gpu_catalog, const ModelCatalog& models,
                       std::vector<JobSpec> jobs, Policy& policy, WorkerFleet& fleet, MeasurementLog& log,
                       ControllerOptions options)
    : cluster_(cluster),
      gpu_catalog_(gpu_catalog),
      models_(models),
      jobs_(std::move(jobs)),
      policy_(policy),
      fleet_(fleet),
      log_(log),
      options_(options),
      topology_(cluster),
      view_(cluster, topology_),
      state_(jobs_.size()),
      records_(jobs_.size()),
      arrival_order_(jobs_.size()) {
  for (std::size_t i = 0; i < jobs_.size(); ++i) {
    JobRecord& r = records_[i];
    r.id = jobs_[i].id;
    r.submit_s = jobs_[i].submit_s;
    r.requested_gpus = jobs_[i].gpus;
    r.model = jobs_[i].model;
    r.iterations = jobs_[i].iterations;
    r.vc = jobs_[i].vc;
    r.virtual_nodes = jobs_[i].effective_virtual_nodes();
    const auto prior = options_.prior.find(r.id);
    if (prior == options_.prior.end()) continue;
    const PriorJob& p = prior->second;
    r.start_s = p.record.start_s;
    r.gpus = p.record.gpus;
    r.restarts = p.record.restarts;
    r.gpu_seconds = p.record.gpu_seconds;
    state_[i].epoch = p.last_epoch;
    state_[i].attained_gpu_s = p.record.gpu_seconds;
    if (p.done) {
      r.state = p.record.state;
      r.finish_s = p.record.finish_s;
      r.reason = p.record.reason;
      state_[i].phase = Phase::Done;
    } else {
      state_[i].iterations_done = std::min<long long>(p.checkpoint_iteration, jobs_[i].iterations);
      state_[i].iterations_seen = state_[i].iterations_done;
    }
  }
  std::iota(arrival_order_.begin(), arrival_order_.end(), JobIndex{0});
  std::stable_sort(arrival_order_.begin(), arrival_order_.end(),
                   [&](JobIndex a, JobIndex b) { return jobs_[a].submit_s < jobs_[b].submit_s; });
}

Controller::~Controller() = default;

bool Controller::all_done() const {
  return std::all_of(state_.begin(), state_.end(), [](const JobState& s) { return s.phase == Phase::Done; });
}

std::vector<JobRecord> Controller::run() {
  while (true) {
    const double now = fleet_.now_s();
    process_arrivals(now);
    run_policy(now);
    if (all_done()) break;
    timer_s_.reset();
    if (auto t = policy_.next_timer_s(now); t && *t > now) timer_s_ = t;
    double until = std::numeric_limits<double>::infinity();
    if (next_arrival_ < arrival_order_.size()) until = jobs_[arrival_order_[next_arrival_]].submit_s;
    if (timer_s_) until = std::min(until, *timer_s_);
    const bool busy = std::any_of(state_.begin(), state_.end(), [](const JobState& s) {
      return s.phase == Phase::Running || s.stopping_epoch >= 0;
    });
    if (!busy && std::isinf(until)) {
      // Nothing will ever change: say why each waiting job cannot run.
      const int alive = cluster_.gpu_count() - static_cast<int>(failed_gpus_.size());
      for (const QueuedJob& q : queued_) {
        JobRecord& r = records_[q.index];
        r.state = FinalState::Rejected;
        r.reason = jobs_[q.index].gpus > alive
                       ? "needs " + std::to_string(jobs_[q.index].gpus) + " workers, " +
                             std::to_string(alive) + " left in service after failures"
                       : "policy left the job queued on an idle testbed";
        state_[q.index].phase = Phase::Done;
        log_.write({{"event", "reject"}, {"t", now}, {"job", r.id}, {"reason", r.reason}});
      }
      queued_.clear();
      break;
    }
    for (const FleetEvent& e : fleet_.wait(until)) handle(e);
  }
  return records_;
}

void Controller::process_arrivals(double now) {
  while (next_arrival_ < arrival_order_.size() && jobs_[arrival_order_[next_arrival_]].submit_s <= now) {
    const JobIndex j = arrival_order_[next_arrival_++];
    if (state_[j].phase == Phase::Done) continue;  // finished or rejected by an earlier attempt
    const auto prior = options_.prior.find(jobs_[j].id);
    if (prior == options_.prior.end() || !prior->second.submitted)
      log_.write({{"event", "submit"}, {"t", now}, {"job", jobs_[j].id}, {"submit_s", jobs_[j].submit_s}});
    if (auto why = why_infeasible(jobs_[j], cluster_, gpu_catalog_, models_)) {
      state_[j].phase = Phase::Done;
      records_[j].reason = *why;
      log_.write({{"event", "reject"}, {"t", now}, {"job", jobs_[j].id}, {"reason", *why}});
      continue;
    }
    state_[j].phase = Phase::Queued;
    requeue(j);
  }
}

double Controller::estimate_s(JobIndex job) const {
  const JobSpec& spec = jobs_[job];
  const GpuTypeMask allowed = allowed_gpu_types(spec, cluster_, gpu_catalog_, models_);
  const auto gpus = consolidated_gpus_on_empty_cluster(cluster_, spec.gpus, allowed);
  if (!gpus) return -1;
  const Placement p = spread_virtual_nodes(*gpus, spec.effective_virtual_nodes());
  const double per_iteration =
      iteration_time(topology_, gpu_catalog_, models_.at(spec.model), p, spec.global_batch).total_s;
  return static_cast<double>(spec.iterations - state_[job].iterations_done) * per_iteration;
}

void Controller::requeue(JobIndex job) {
  const JobSpec& spec = jobs_[job];
  const GpuTypeMask allowed = allowed_gpu_types(spec, cluster_, gpu_catalog_, models_);
  QueuedJob q{job, &spec, state_[job].attained_gpu_s, estimate_s(job), allowed};
  // Submission order, as the simulator keeps its queue.
  const auto rank = [&](JobIndex j) {
    return std::find(arrival_order_.begin(), arrival_order_.end(), j) - arrival_order_.begin();
  };
  const auto pos = std::find_if(queued_.begin(), queued_.end(),
                                [&](const QueuedJob& other) { return rank(other.index) > rank(job); });
  queued_.insert(pos, q);
}

void Controller::run_policy(double now) {
  for (int round = 0;; ++round) {
    if (round == kMaxDecideRounds)
      throw std::logic_error("policy '" + policy_.name() + "' keeps returning decisions; it is looping");
    std::vector<RunningJob> running;
    for (std::size_t j = 0; j < state_.size(); ++j) {
      const JobState& s = state_[j];
      if (s.phase != Phase::Running) continue;
      const double held =
          s.deferred ? 0 : static_cast<double>(s.placement.gpus.size()) * (now - s.run_start_s);
      double remaining = -1;
      const long long left = jobs_[j].iterations - std::max(s.iterations_done, s.iterations_seen);
      if (s.iteration_s > 0) remaining = static_cast<double>(left) * s.iteration_s;
      running.push_back(
          RunningJob{j, &jobs_[j], s.placement, s.run_start_s, s.attained_gpu_s + held, remaining});
    }
    SchedulerInput input;
    input.now_s = now;
    input.view = &view_;
    input.queued = queued_;
    input.running = std::move(running);
    const std::vector<Decision> decisions = policy_.decide(input);
    if (decisions.empty()) return;
    for (const Decision& d : decisions) apply(d, now);
    std::erase_if(queued_, [&](const QueuedJob& q) { return state_[q.index].phase != Phase::Queued; });
  }
}

void Controller::apply(const Decision& d, double now) {
  std::visit(
      [&](const auto& x) {
        using T = std::decay_t<decltype(x)>;
        if constexpr (std::is_same_v<T, StartJob>) {
          start_job(x, now);
        } else if constexpr (std::is_same_v<T, PreemptJob>) {
          preempt_job(x, now);
        } else if constexpr (std::is_same_v<T, ResizeJob>) {
          resize_job(x, now);
        } else {
          if (x.job >= state_.size() || state_[x.job].phase != Phase::Queued)
            throw std::logic_error("policy '" + policy_.name() + "' rejected a job that is not queued");
          state_[x.job].phase = Phase::Done;
          records_[x.job].reason = x.reason;
          log_.write({{"event", "reject"}, {"t", now}, {"job", jobs_[x.job].id}, {"reason", x.reason}});
        }
      },
      d);
}

void Controller::launch(Launch l) {
  if (auto it = options_.inject_failure.find(jobs_[l.job].id); it != options_.inject_failure.end())
    l.fail_at_iteration = it->second;
  log_.write({{"event", "launch"},
              {"t", fleet_.now_s()},
              {"job", jobs_[l.job].id},
              {"epoch", l.epoch},
              {"gpus", gpu_list(l.gpus)},
              {"vn_per_gpu", l.vn_per_gpu},
              {"start_iteration", l.start_iteration},
              {"global_batch", l.global_batch}});
  fleet_.start(l);
}

bool Controller::draining(const std::vector<GpuId>& gpus) const {
  return std::any_of(gpus.begin(), gpus.end(), [&](GpuId g) { return draining_.count(g) > 0; });
}

void Controller::drain(JobIndex job, const std::vector<GpuId>& gpus) {
  for (GpuId g : gpus) draining_[g] = job;
}

void Controller::drained(JobIndex job, double now) {
  std::erase_if(draining_, [&](const auto& kv) { return kv.second == job; });
  for (std::size_t j = 0; j < state_.size(); ++j) {
    JobState& s = state_[j];
    if (s.phase != Phase::Running || !s.deferred || s.stopping_epoch >= 0 || draining(s.deferred->gpus))
      continue;
    Launch l = *s.deferred;
    s.deferred.reset();
    l.start_iteration = s.iterations_done;
    l.params = s.iterations_done > 0 ? ParamSource::Checkpoint : ParamSource::Fresh;
    s.run_start_s = now;
    launch(l);
  }
}

void Controller::start_job(const StartJob& d, double now) {
  if (d.job >= state_.size() || state_[d.job].phase != Phase::Queued)
    throw std::logic_error("policy '" + policy_.name() + "' started job " + std::to_string(d.job) +
                           ", which is not queued");
  JobState& s = state_[d.job];
  const JobSpec& spec = jobs_[d.job];
  Placement placement = d.placement;
  if (placement.vn_per_gpu.empty())
    placement = spread_virtual_nodes(placement.gpus, spec.effective_virtual_nodes());
  view_.allocate(placement.gpus, d.job);  // throws on over-commitment
  JobRecord& r = records_[d.job];
  if (r.start_s < 0) r.start_s = now;
  r.gpus = placement.gpus;
  std::sort(r.gpus.begin(), r.gpus.end());
  s.phase = Phase::Running;
  s.placement = placement;
  s.run_start_s = now;
  s.iteration_s = -1;
  s.iteration_sum_s = 0;
  s.iteration_count = 0;
  Launch l;
  l.job = d.job;
  l.epoch = ++s.epoch;
  l.gpus = placement.gpus;
  l.vn_per_gpu = placement.vn_per_gpu;
  l.start_iteration = s.iterations_done;
  l.global_batch = spec.global_batch;
  l.params = s.iterations_done > 0 ? ParamSource::Checkpoint : ParamSource::Fresh;
  log_.write(
      {{"event", "start"}, {"t", now}, {"job", spec.id}, {"epoch", l.epoch}, {"gpus", gpu_list(l.gpus)}});
  if (s.stopping_epoch >= 0 || draining(l.gpus)) {
    s.deferred = l;  // sent when the stopped segments' checkpoints exist
  } else {
    launch(l);
  }
}

void Controller::note_stop_of(JobIndex job, double now) {
  JobState& s = state_[job];
  JobRecord& r = records_[job];
  const double held = static_cast<double>(s.placement.gpus.size()) * (now - s.run_start_s);
  if (!s.deferred) {
    s.attained_gpu_s += held;
    r.gpu_seconds += held;
  }
  view_.release(s.placement.gpus, job);
}

void Controller::preempt_job(const PreemptJob& d, double now) {
  if (d.job >= state_.size() || state_[d.job].phase != Phase::Running)
    throw std::logic_error("policy '" + policy_.name() + "' preempted job " + std::to_string(d.job) +
                           ", which is not running");
  JobState& s = state_[d.job];
  note_stop_of(d.job, now);
  if (s.deferred) {
    s.deferred.reset();  // never launched: nothing to stop
  } else {
    s.stopping_epoch = s.epoch;
    drain(d.job, s.placement.gpus);
    fleet_.stop(d.job, s.epoch);
  }
  ++records_[d.job].restarts;
  log_.write({{"event", "preempt"}, {"t", now}, {"job", jobs_[d.job].id}, {"epoch", s.epoch}});
  s.phase = Phase::Queued;
  requeue(d.job);
}

void Controller::resize_job(const ResizeJob& d, double now) {
  if (d.job >= state_.size() || state_[d.job].phase != Phase::Running)
    throw std::logic_error("policy '" + policy_.name() + "' resized job " + std::to_string(d.job) +
                           ", which is not running");
  JobState& s = state_[d.job];
  JobSpec& spec = jobs_[d.job];
  if (d.global_batch > 0) spec.global_batch = d.global_batch;
  Placement next = d.placement;
  if (next.vn_per_gpu.empty()) next = spread_virtual_nodes(next.gpus, spec.effective_virtual_nodes());
  const std::vector<GpuId> old = s.placement.gpus;
  int root = -1;
  for (std::size_t i = 0; i < next.gpus.size() && root < 0; ++i)
    if (std::find(old.begin(), old.end(), next.gpus[i]) != old.end()) root = static_cast<int>(i);
  const bool in_place = d.mode == ResizeMode::InPlace && root >= 0 && !s.deferred && s.stopping_epoch < 0;
  note_stop_of(d.job, now);
  view_.allocate(next.gpus, d.job);
  log_.write({{"event", "resize"},
              {"t", now},
              {"job", spec.id},
              {"from_gpus", gpu_list(old)},
              {"to_gpus", gpu_list(next.gpus)},
              {"vn_per_gpu", next.vn_per_gpu},
              {"epoch", s.epoch + 1},  // the new segment's
              {"in_place", in_place},
              {"global_batch", spec.global_batch}});
  Launch l;
  l.job = d.job;
  l.gpus = next.gpus;
  l.vn_per_gpu = next.vn_per_gpu;
  l.global_batch = spec.global_batch;
  const int old_epoch = s.epoch;
  l.epoch = ++s.epoch;
  s.placement = next;
  s.run_start_s = now;
  s.iteration_sum_s = 0;
  s.iteration_count = 0;
  s.iteration_s = -1;
  records_[d.job].gpus = next.gpus;
  std::sort(records_[d.job].gpus.begin(), records_[d.job].gpus.end());
  if (in_place) {
    l.params = ParamSource::FromMember;
    l.params_root = root;
    if (auto it = options_.inject_failure.find(spec.id); it != options_.inject_failure.end())
      l.fail_at_iteration = it->second;
    fleet_.resize(d.job, old_epoch, l);
    return;
  }
  // Checkpoint-restart (or no GPU in common): stop, then start from the checkpoint.
  ++records_[d.job].restarts;
  if (s.deferred) {
    s.deferred = l;
    return;
  }
  if (s.stopping_epoch < 0) {
    s.stopping_epoch = old_epoch;
    drain(d.job, old);
    fleet_.stop(d.job, old_epoch);
  }
  s.deferred = l;
}

void Controller::finish_job(JobIndex job, double now, long long iterations) {
  JobState& s = state_[job];
  JobRecord& r = records_[job];
  if (s.phase == Phase::Running) {
    note_stop_of(job, now);
    s.deferred.reset();
  }
  std::erase_if(queued_, [&](const QueuedJob& q) { return q.index == job; });
  s.phase = Phase::Done;
  s.iterations_done = iterations;
  r.state = FinalState::Completed;
  r.finish_s = now;
  r.reason.clear();
}

void Controller::handle(const FleetEvent& e) {
  JobState& s = state_.at(e.job);
  const std::string& id = jobs_[e.job].id;
  switch (e.kind) {
    case FleetEvent::Kind::Iteration:
      s.iterations_seen = std::max(s.iterations_seen, e.iteration + 1);
      if (options_.checkpoint_every > 0 && (e.iteration + 1) % options_.checkpoint_every == 0)
        s.iterations_done = std::max(s.iterations_done, e.iteration + 1);
      if (e.epoch == s.epoch) {
        s.iteration_sum_s += e.seconds;
        ++s.iteration_count;
        s.iteration_s = s.iteration_sum_s / static_cast<double>(s.iteration_count);
      }
      log_.write({{"event", "iteration"},
                  {"t", e.time_s},
                  {"job", id},
                  {"epoch", e.epoch},
                  {"iteration", e.iteration},
                  {"seconds", e.seconds},
                  {"compute_s", e.compute_s},
                  {"allreduce_s", e.allreduce_s}});
      return;
    case FleetEvent::Kind::Finished:
      log_.write({{"event", "finish"},
                  {"t", e.time_s},
                  {"job", id},
                  {"epoch", e.epoch},
                  {"checksum", std::to_string(e.checksum)},
                  {"params_consistent", e.params_consistent}});
      if (s.stopping_epoch == e.epoch) s.stopping_epoch = -1;
      finish_job(e.job, e.time_s, jobs_[e.job].iterations);
      drained(e.job, e.time_s);
      return;
    case FleetEvent::Kind::Stopped:
      log_.write({{"event", "stopped"},
                  {"t", e.time_s},
                  {"job", id},
                  {"epoch", e.epoch},
                  {"iterations_done", e.iteration},
                  {"checksum", std::to_string(e.checksum)},
                  {"params_consistent", e.params_consistent}});
      s.iterations_done = e.iteration;
      s.iterations_seen = e.iteration;
      s.stopping_epoch = -1;
      drained(e.job, e.time_s);  // launches this job's and others' deferred segments
      return;
    case FleetEvent::Kind::Resized:
    case FleetEvent::Kind::ResizeBoundary:
      // The old segment's leader reports the step boundary (old epoch); the
      // new segment's leader reports the parameter broadcast (new epoch).
      log_.write({{"event", e.kind == FleetEvent::Kind::Resized ? "resized" : "resize_boundary"},
                  {"t", e.time_s},
                  {"job", id},
                  {"epoch", e.epoch},
                  {"iterations_done", e.iteration},
                  {"checksum", std::to_string(e.checksum)},
                  {"params_consistent", e.params_consistent}});
      s.iterations_done = std::max(s.iterations_done, e.iteration);
      return;
    case FleetEvent::Kind::Failed: {
      log_.write({{"event", "failure"},
                  {"t", e.time_s},
                  {"job", id},
                  {"epoch", e.epoch},
                  {"failed_gpu", e.failed_gpu},
                  {"resume_iteration", e.iteration}});
      options_.inject_failure.erase(id);  // injected once
      s.iterations_done = e.iteration;
      s.iterations_seen = e.iteration;
      ++records_[e.job].restarts;
      if (s.stopping_epoch == e.epoch) {
        // Failed while being stopped: the job is already queued or waiting
        // for this segment's end; what it has is the last checkpoint.
        s.stopping_epoch = -1;
        if (s.deferred) {
          const auto& g = s.deferred->gpus;
          if (std::find(g.begin(), g.end(), e.failed_gpu) != g.end()) {
            note_stop_of(e.job, e.time_s);
            s.deferred.reset();
            s.phase = Phase::Queued;
            requeue(e.job);
          } else {
            Launch l = *s.deferred;
            s.deferred.reset();
            l.start_iteration = s.iterations_done;
            l.params = s.iterations_done > 0 ? ParamSource::Checkpoint : ParamSource::Fresh;
            launch(l);
          }
        }
      } else if (s.phase == Phase::Running) {
        note_stop_of(e.job, e.time_s);
        s.deferred.reset();
        s.phase = Phase::Queued;
        requeue(e.job);
      }
      if (e.failed_gpu >= 0 && view_.is_free(e.failed_gpu)) {
        // Out of service for good: held by a job index no real job has.
        view_.allocate({e.failed_gpu}, jobs_.size() + static_cast<std::size_t>(e.failed_gpu));
        failed_gpus_.push_back(e.failed_gpu);
      }
      drained(e.job, e.time_s);
      return;
    }
  }
}

}  // namespace vnsim::real_exec
