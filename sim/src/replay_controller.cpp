#include "replay_controller.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <mutex>
#include <numeric>
#include <simgrid/s4u/Engine.hpp>
#include <stdexcept>
#include <string>

#include "vnsim/core/error.hpp"
#include "vnsim/core/feasibility.hpp"

namespace sg4 = simgrid::s4u;

namespace vnsim::sim {
namespace {

constexpr const char* kIdleClusterReason = "policy left the job queued on an idle cluster";
// A round-based policy may wait a few rounds on an idle cluster before it
// starts anything; one that never does must not spin forever on its timer.
constexpr int kMaxIdleTimerWakes = 1000;

}  // namespace

ReplayController::ReplayController(const ReplayInputs& in, const Platform& platform, ReplayRecorder& recorder)
    : in_(in),
      platform_(platform),
      recorder_(recorder),
      view_(in.cluster, in.topology),
      estimator_(in.topology, in.gpu_catalog, in.models),
      state_(in.jobs.size()),
      family_(interference_families(in.jobs)),
      arrival_order_(in.jobs.size()) {
  for (std::size_t i = 0; i < in.jobs.size(); ++i)
    if (!std::isfinite(in.jobs[i].submit_s))
      throw InputError("job '" + in.jobs[i].id + "' (index " + std::to_string(i) +
                       "): submit time is not finite");
  std::iota(arrival_order_.begin(), arrival_order_.end(), JobIndex{0});
  std::stable_sort(arrival_order_.begin(), arrival_order_.end(),
                   [&](JobIndex a, JobIndex b) { return in.jobs[a].submit_s < in.jobs[b].submit_s; });
  arrival_rank_.resize(in.jobs.size());
  for (std::size_t i = 0; i < arrival_order_.size(); ++i) arrival_rank_[arrival_order_[i]] = i;
  for (std::size_t i = 0; i < in.jobs.size(); ++i) state_[i].global_batch = in.jobs[i].global_batch;
  init_node_events();
}

void ReplayController::run() {
  channel_ = std::make_shared<CompletionChannel>();
  // Held except while waiting, so a ring job's report cannot slip in between
  // checking `finished` and starting to wait.
  std::unique_lock<sg4::Mutex> lock(*channel_->mutex);
  double now = sg4::Engine::get_clock();
  while (true) {
    step(now);
    if (recorder_.all_done()) return;
    if (!channel_->finished.empty()) {
      now = sg4::Engine::get_clock();
      continue;
    }
    const std::optional<double> next = next_wake_s();
    if (!next) {
      if (running_.empty())
        throw std::logic_error("replay stalled at t=" + std::to_string(now) +
                               " with nothing left to wait for");
      channel_->wake->wait(lock);  // only ring jobs are running: wait for one to end
      now = sg4::Engine::get_clock();
    } else if (*next > sg4::Engine::get_clock()) {
      const bool timed_out = channel_->wake->wait_until(lock, *next) == std::cv_status::timeout;
      // Event times are kept exact (not the engine clock) so an analytic job
      // ends at start + iterations * T_iter bit for bit.
      now = timed_out ? std::max(sg4::Engine::get_clock(), *next) : sg4::Engine::get_clock();
    } else {
      now = std::max(now, *next);
    }
  }
}

std::optional<double> ReplayController::next_wake_s() const {
  double next = std::numeric_limits<double>::infinity();
  if (next_arrival_ < arrival_order_.size()) next = in_.jobs[arrival_order_[next_arrival_]].submit_s;
  if (!analytic_ends_.empty()) next = std::min(next, analytic_ends_.top().time_s);
  if (timer_s_) next = std::min(next, *timer_s_);
  if (!node_events_.empty()) next = std::min(next, node_events_.top().time_s);
  if (std::isinf(next)) return std::nullopt;
  return next;
}

void ReplayController::step(double now) {
  release_quiescent_jobs();
  process_completions(now);
  process_node_events(now);
  process_arrivals(now);
  run_policy(now);
  refresh_fluid_rates(now);  // after every start and stop at this instant
  timer_s_.reset();
  if (auto t = in_.policy.next_timer_s(now); t && *t > now && !recorder_.all_done()) timer_s_ = *t;
  guard_against_idle_deadlock(now);
}

// Ended and stopped jobs are kept until no comm of theirs is in flight
// (simgrid.md §8.2), then dropped so their actors' stacks are unmapped.
void ReplayController::release_quiescent_jobs() {
  std::erase_if(stopped_rings_, [](const auto& r) { return release_ring_if_quiescent(*r); });
  std::erase_if(stopped_flows_, [](const auto& f) { return f->release_if_quiescent(); });
}

void ReplayController::process_completions(double now) {
  std::vector<AnalyticEnd> ends;
  // Swapped out first: taking a ring back may launch another one.
  std::vector<CompletionChannel::Finished> reports;
  reports.swap(channel_->finished);
  for (const auto& f : reports) {
    if (f.handed_off_after >= 0) {
      take_back_ring(f.job, f.epoch, f.handed_off_after, now);
    } else {
      ends.push_back(AnalyticEnd{now, f.job, f.epoch});
    }
  }
  wake_contended_quiet_rings(now);
  bool any = false;
  // A completion that speeds up a GPU co-tenant may move the co-tenant's end
  // to this instant or before: hence the loop until no end is due.
  while (true) {
    while (!analytic_ends_.empty() && analytic_ends_.top().time_s <= now) {
      ends.push_back(analytic_ends_.top());
      analytic_ends_.pop();
    }
    if (ends.empty()) break;
    any = true;
    std::sort(ends.begin(), ends.end(), [](const AnalyticEnd& a, const AnalyticEnd& b) { return b > a; });
    process_ends(ends);
    ends.clear();
  }
  if (any) std::erase_if(running_, [&](const RunningJob& r) { return state_[r.index].phase == Phase::Done; });
}

void ReplayController::process_ends(const std::vector<AnalyticEnd>& ends) {
  for (const AnalyticEnd& e : ends) {
    const JobState& s = state_[e.job];
    // A run stopped by a preemption leaves a stale end behind: skip it.
    if (s.epoch != e.epoch) continue;
    if (s.phase == Phase::SettingUp) {
      begin_run(e.job, e.time_s);
      continue;
    }
    if (s.phase != Phase::Running) throw std::logic_error("job " + std::to_string(e.job) + " ended twice");
    finish_job(e.job, e.time_s);
  }
}

void ReplayController::finish_job(JobIndex job, double now) {
  JobState& s = state_[job];
  view_.release(s.placement.gpus, job);
  recorder_.completed(job, now, s.placement.gpus);
  rescale_tenants(s.placement.gpus, job, now);  // the co-tenants it leaves speed up
  s.phase = Phase::Done;
  s.iterations_done = in_.jobs[job].iterations;
  ++s.epoch;  // a ring's report racing a preemption-turned-completion is stale
  if (s.ring) stopped_rings_.push_back(std::move(s.ring));  // released once quiescent
  stop_quiet_segment(s);
  if (s.flow) stopped_flows_.push_back(std::move(s.flow));
  last_event_s_ = std::max(last_event_s_, now);
}

void ReplayController::process_arrivals(double now) {
  while (next_arrival_ < arrival_order_.size() && in_.jobs[arrival_order_[next_arrival_]].submit_s <= now) {
    const JobIndex j = arrival_order_[next_arrival_++];
    const JobSpec& spec = in_.jobs[j];
    last_event_s_ = std::max(last_event_s_, spec.submit_s);
    if (auto why = why_infeasible(spec, in_.cluster, in_.gpu_catalog, in_.models)) {
      state_[j].phase = Phase::Done;
      recorder_.rejected(j, now, *why);
      continue;
    }
    state_[j].phase = Phase::Queued;
    const GpuTypeMask allowed = allowed_gpu_types(spec, in_.cluster, in_.gpu_catalog, in_.models);
    queued_.push_back(QueuedJob{j, &spec, 0, estimator_.estimate_s(spec, allowed), allowed});
  }
}

// Never hang, never drop: with nothing running, nothing left to arrive and
// no timer that could change the policy's mind, queued jobs can never start.
void ReplayController::guard_against_idle_deadlock(double now) {
  // A node that is down comes back at a known time, so the queue may move then.
  const bool idle =
      running_.empty() && next_arrival_ == arrival_order_.size() && !queued_.empty() && !any_node_down();
  if (!idle) {
    idle_timer_wakes_ = 0;
    return;
  }
  if (timer_s_ && ++idle_timer_wakes_ <= kMaxIdleTimerWakes) return;
  for (const QueuedJob& q : queued_) {
    state_[q.index].phase = Phase::Done;
    recorder_.rejected(q.index, now, kIdleClusterReason);
  }
  queued_.clear();
  timer_s_.reset();
  last_event_s_ = std::max(last_event_s_, now);
}

}  // namespace vnsim::sim
