#include "vnsim/real_exec/controller.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>
#include <type_traits>

#include "vnsim/core/perf_model.hpp"

namespace vnsim::real_exec {
namespace {

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
      driver_(cluster, topology_, gpu_catalog, models, jobs_, policy, *this),
      view_(driver_.view()),
      state_(jobs_.size()),
      records_(jobs_.size()) {
  for (std::size_t i = 0; i < jobs_.size(); ++i) {
    JobRecord& r = records_[i];
    r.id = jobs_[i].id;
    r.submit_s = jobs_[i].submit_s;
    r.requested_gpus = jobs_[i].gpus;
    r.model = jobs_[i].model;
    r.iterations = jobs_[i].iterations;
    r.vc = jobs_[i].vc;
    r.virtual_nodes = jobs_[i].effective_virtual_nodes();
    state_[i].batch = state_[i].next_batch = jobs_[i].global_batch;
    state_[i].total = jobs_[i].iterations;
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
      driver_.mark_done(i);
    } else {
      // Counted at the last launch's batch, which a resumed run continues.
      if (p.global_batch > 0) state_[i].batch = state_[i].next_batch = p.global_batch;
      if (p.total_iterations > 0) state_[i].total = p.total_iterations;
      state_[i].iterations_done = std::min<long long>(p.checkpoint_iteration, state_[i].total);
      state_[i].iterations_seen = state_[i].iterations_done;
    }
  }
}

Controller::~Controller() = default;

bool Controller::all_done() const {
  for (std::size_t j = 0; j < jobs_.size(); ++j)
    if (driver_.phase(j) != Phase::Done) return false;
  return true;
}

std::vector<JobRecord> Controller::run() {
  while (true) {
    const double now = fleet_.now_s();
    driver_.process_arrivals(now);
    driver_.run_policy(now);
    if (all_done()) break;
    driver_.update_timer(now, false);
    if (driver_.guard_against_idle_deadlock(now) && all_done()) break;
    double until = std::numeric_limits<double>::infinity();
    if (auto arrival = driver_.next_arrival_s()) until = *arrival;
    if (auto timer = driver_.timer_s()) until = std::min(until, *timer);
    for (const FleetEvent& e : fleet_.wait(until)) handle(e);
  }
  return records_;
}

JobProgress Controller::arrived(JobIndex job, double now) {
  const auto prior = options_.prior.find(jobs_[job].id);
  if (prior == options_.prior.end() || !prior->second.submitted)
    log_.write({{"event", "submit"}, {"t", now}, {"job", jobs_[job].id}, {"submit_s", jobs_[job].submit_s}});
  return progress_of(job);
}

JobProgress Controller::progress_of(JobIndex job) const {
  const JobState& s = state_[job];
  return JobProgress{s.attained_gpu_s, jobs_[job].iterations - (s.total - s.iterations_done)};
}

void Controller::adopt_batch(JobIndex job, int new_batch) {
  JobState& s = state_[job];
  if (new_batch == s.batch) return;
  const JobSpec& spec = jobs_[job];
  const long long left = s.total - s.iterations_done;
  if (left > 0) {
    const NoiseScaleCatalog& noise = options_.noise ? *options_.noise : NoiseScaleCatalog::builtin();
    const double steps = steps_left_after_batch_change(noise.find(spec.model), spec.global_batch,
                                                       static_cast<double>(spec.iterations), s.batch,
                                                       static_cast<double>(left), new_batch);
    s.total = s.iterations_done + std::max(1LL, std::llround(steps));
  }
  s.batch = new_batch;
}

void Controller::rejected(JobIndex job, double now, const std::string& reason) {
  JobRecord& r = records_[job];
  r.state = FinalState::Rejected;
  r.reason = reason;
  log_.write({{"event", "reject"}, {"t", now}, {"job", r.id}, {"reason", reason}});
}

// Nothing runs and nothing will arrive: say why a waiting job cannot run.
std::string Controller::idle_reason(JobIndex job) const {
  const int alive = cluster_.gpu_count() - static_cast<int>(failed_gpus_.size());
  return jobs_[job].gpus > alive ? "needs " + std::to_string(jobs_[job].gpus) + " workers, " +
                                       std::to_string(alive) + " left in service after failures"
                                 : "policy left the job queued on an idle testbed";
}

// A stop still in flight ends with a Stopped event that may launch a
// deferred segment.
bool Controller::will_change_by_itself() const {
  return std::any_of(state_.begin(), state_.end(), [](const JobState& s) { return s.stopping_epoch >= 0; });
}

void Controller::requeue(JobIndex job) {
  driver_.requeue(job, progress_of(job));
}

// Attained service counts the time the job held its GPUs in this segment;
// the remaining time comes from its measured mean iteration (unknown, -1,
// before its first step).
void Controller::refresh_running(std::vector<RunningJob>& running, double now) {
  for (RunningJob& r : running) {
    const JobState& s = state_[r.index];
    const double held = s.deferred ? 0 : static_cast<double>(s.placement.gpus.size()) * (now - s.run_start_s);
    double remaining = -1;
    const long long left = s.total - std::max(s.iterations_done, s.iterations_seen);
    if (s.iteration_s > 0) remaining = static_cast<double>(left) * s.iteration_s;
    r.start_s = s.run_start_s;
    r.attained_gpu_s = s.attained_gpu_s + held;
    r.estimated_remaining_s = remaining;
  }
}

void Controller::launch(Launch l) {
  if (auto it = options_.inject_failure.find(jobs_[l.job].id); it != options_.inject_failure.end())
    l.fail_at_iteration = it->second;
  adopt_batch(l.job, l.global_batch);
  l.total_iterations = state_[l.job].total;
  log_.write({{"event", "launch"},
              {"t", fleet_.now_s()},
              {"job", jobs_[l.job].id},
              {"epoch", l.epoch},
              {"gpus", gpu_list(l.gpus)},
              {"vn_per_gpu", l.vn_per_gpu},
              {"start_iteration", l.start_iteration},
              {"global_batch", l.global_batch},
              {"total_iterations", l.total_iterations}});
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
    if (driver_.phase(j) != Phase::Running || !s.deferred || s.stopping_epoch >= 0 ||
        draining(s.deferred->gpus))
      continue;
    Launch l = *s.deferred;
    s.deferred.reset();
    l.start_iteration = s.iterations_done;
    l.params = s.iterations_done > 0 ? ParamSource::Checkpoint : ParamSource::Fresh;
    s.run_start_s = now;
    launch(l);
  }
}

RunningJob Controller::start(const StartJob& d, double now) {
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
  l.global_batch = s.next_batch;
  l.params = s.iterations_done > 0 ? ParamSource::Checkpoint : ParamSource::Fresh;
  log_.write(
      {{"event", "start"}, {"t", now}, {"job", spec.id}, {"epoch", l.epoch}, {"gpus", gpu_list(l.gpus)}});
  if (s.stopping_epoch >= 0 || draining(l.gpus)) {
    s.deferred = l;  // sent when the stopped segments' checkpoints exist
  } else {
    launch(l);
  }
  return RunningJob{d.job, &spec, placement, now, s.attained_gpu_s, -1};
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

void Controller::preempt(JobIndex job, double now) {
  JobState& s = state_[job];
  note_stop_of(job, now);
  if (s.deferred) {
    s.deferred.reset();  // never launched: nothing to stop
  } else {
    s.stopping_epoch = s.epoch;
    drain(job, s.placement.gpus);
    fleet_.stop(job, s.epoch);
  }
  ++records_[job].restarts;
  log_.write({{"event", "preempt"}, {"t", now}, {"job", jobs_[job].id}, {"epoch", s.epoch}});
  requeue(job);
}

void Controller::resize(const ResizeJob& d, double now) {
  JobState& s = state_[d.job];
  const JobSpec& spec = jobs_[d.job];
  // The spec keeps its own batch: the driver's estimates read it, as the
  // simulator's do.
  if (d.global_batch > 0) s.next_batch = d.global_batch;
  Placement next = d.placement;
  if (next.vn_per_gpu.empty()) next = spread_virtual_nodes(next.gpus, spec.effective_virtual_nodes());
  const std::vector<GpuId> old = s.placement.gpus;
  int root = -1;
  for (std::size_t i = 0; i < next.gpus.size() && root < 0; ++i)
    if (std::find(old.begin(), old.end(), next.gpus[i]) != old.end()) root = static_cast<int>(i);
  // A batch change waits for the old segment's step count, so it restarts
  // from the checkpoint (the policies that change batch resize that way).
  const bool in_place = d.mode == ResizeMode::InPlace && root >= 0 && !s.deferred && s.stopping_epoch < 0 &&
                        s.next_batch == s.batch;
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
              {"global_batch", s.next_batch}});
  Launch l;
  l.job = d.job;
  l.gpus = next.gpus;
  l.vn_per_gpu = next.vn_per_gpu;
  l.global_batch = s.next_batch;
  l.total_iterations = s.total;
  const int old_epoch = s.epoch;
  l.epoch = ++s.epoch;
  s.placement = next;
  s.run_start_s = now;
  s.iteration_sum_s = 0;
  s.iteration_count = 0;
  s.iteration_s = -1;
  records_[d.job].gpus = next.gpus;
  std::sort(records_[d.job].gpus.begin(), records_[d.job].gpus.end());
  driver_.moved(d.job, next);
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
  if (driver_.phase(job) == Phase::Running) {
    note_stop_of(job, now);
    s.deferred.reset();
  }
  driver_.finished(job);
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
      finish_job(e.job, e.time_s, s.total);
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
            requeue(e.job);
          } else {
            Launch l = *s.deferred;
            s.deferred.reset();
            l.start_iteration = s.iterations_done;
            l.params = s.iterations_done > 0 ? ParamSource::Checkpoint : ParamSource::Fresh;
            launch(l);
          }
        }
      } else if (driver_.phase(e.job) == Phase::Running) {
        note_stop_of(e.job, e.time_s);
        s.deferred.reset();
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
