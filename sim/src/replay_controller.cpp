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

}  // namespace

ReplayController::ReplayController(const ReplayInputs& in, const Platform& platform, ReplayRecorder& recorder)
    : in_(in),
      recorder_(recorder),
      driver_(in.cluster, in.topology, in.gpu_catalog, in.models, in.jobs, in.policy, *this),
      view_(driver_.view()),
      batches_(in.jobs, in.options.noise_profiles),
      costs_(in.cluster.spec().elasticity, in.models),
      sharing_(in.cluster, in.jobs, view_),
      clock_(in.jobs.size()),
      rings_(make_ring_timing(ring_engine_of(in.options),
                              RingContext{in, platform, actors_, sharing_, batches_, clock_})),
      node_events_(in.cluster, in.options),
      lifecycle_(LifecycleParts{in, platform, recorder, driver_, batches_, costs_, sharing_, clock_, actors_,
                                *rings_}) {
  if (!in.jobs.empty()) {
    const auto [first, last] =
        std::minmax_element(in.jobs.begin(), in.jobs.end(),
                            [](const JobSpec& a, const JobSpec& b) { return a.submit_s < b.submit_s; });
    first_submit_s_ = first->submit_s;
    last_submit_s_ = last->submit_s;
  }
}

void ReplayController::run() {
  actors_.open();
  CompletionChannel& channel = actors_.channel();
  // Held except while waiting, so a ring job's report cannot slip in between
  // checking `finished` and starting to wait.
  std::unique_lock<sg4::Mutex> lock(*channel.mutex);
  double now = sg4::Engine::get_clock();
  while (true) {
    step(now);
    if (recorder_.all_done()) return;
    if (!channel.finished.empty()) {
      now = sg4::Engine::get_clock();
      continue;
    }
    const std::optional<double> next = next_wake_s();
    if (!next) {
      if (driver_.running().empty())
        throw std::logic_error("replay stalled at t=" + std::to_string(now) +
                               " with nothing left to wait for");
      channel.wake->wait(lock);  // only ring jobs are running: wait for one to end
      now = sg4::Engine::get_clock();
    } else if (*next > sg4::Engine::get_clock()) {
      const bool timed_out = channel.wake->wait_until(lock, *next) == std::cv_status::timeout;
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
  if (auto arrival = driver_.next_arrival_s()) next = *arrival;
  if (auto end = clock_.next_s()) next = std::min(next, *end);
  if (auto timer = driver_.timer_s()) next = std::min(next, *timer);
  if (auto node_event = node_events_.next_s()) next = std::min(next, *node_event);
  if (std::isinf(next)) return std::nullopt;
  return next;
}

void ReplayController::step(double now) {
  actors_.release_quiescent();
  process_completions(now);
  process_node_events(now);
  driver_.process_arrivals(now);
  driver_.run_policy(now);
  rings_->settle(now);  // after every start and stop at this instant
  driver_.update_timer(now, recorder_.all_done());
  if (driver_.guard_against_idle_deadlock(now)) lifecycle_.note_event(now);
  // A restart, stop or speed change leaves the job's old end in the heap
  // (its epoch is then out of date). Dropped from the top here, it no longer
  // wakes the controller, and the policy, at a time when nothing happens.
  clock_.drop_stale();
  recorder_.instant_over();  // the GPUs' power states, once per instant
  if (in_.options.progress)
    in_.options.progress(
        ReplayProgress{recorder_.jobs_done(), in_.jobs.size(), now, first_submit_s_, last_submit_s_});
}

void ReplayController::process_completions(double now) {
  std::vector<RunClock::End> ends;
  // Swapped out first: taking a ring back may launch another one.
  std::vector<CompletionChannel::Finished> reports;
  reports.swap(actors_.channel().finished);
  for (const auto& f : reports) {
    if (f.handed_off_after >= 0) {
      rings_->handed_back(f.job, f.epoch, f.handed_off_after, now);
    } else {
      ends.push_back(RunClock::End{now, f.job, f.epoch});
    }
  }
  rings_->traffic_changed(now);
  // A completion that speeds up a GPU co-tenant may move the co-tenant's end
  // to this instant or before: hence the loop until no end is due.
  while (true) {
    clock_.take_due(now, ends);
    if (ends.empty()) break;
    std::sort(ends.begin(), ends.end(), [](const RunClock::End& a, const RunClock::End& b) { return b > a; });
    lifecycle_.process_ends(ends);
    ends.clear();
  }
}

JobProgress ReplayController::arrived(JobIndex job, double /*now*/) {
  lifecycle_.note_event(in_.jobs[job].submit_s);
  return {};
}

void ReplayController::rejected(JobIndex job, double now, const std::string& reason) {
  lifecycle_.rejected(job, now, reason);
}

void ReplayController::decision_applied(double now) {
  lifecycle_.note_event(now);
}

RunningJob ReplayController::start(const StartJob& d, double now) {
  return lifecycle_.start(d, now);
}

void ReplayController::preempt(JobIndex job, double now) {
  lifecycle_.preempt(job, now);
}

void ReplayController::resize(const ResizeJob& d, double now) {
  lifecycle_.resize(d, now);
}

void ReplayController::refresh_running(std::vector<RunningJob>& running, double now) {
  lifecycle_.refresh_running(running, now);
}

// A node that is down comes back at a known time, so the queue may move then.
bool ReplayController::will_change_by_itself() const {
  return node_events_.any_down();
}

std::string ReplayController::idle_reason(JobIndex /*job*/) const {
  return kIdleClusterReason;
}

}  // namespace vnsim::sim
