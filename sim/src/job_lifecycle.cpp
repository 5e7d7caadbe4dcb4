// The lifecycle's ends: a job completes, or is rejected.
#include "job_lifecycle.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace vnsim::sim {

JobLifecycle::JobLifecycle(const LifecycleParts& parts)
    : in_(parts.in), parts_(parts), view_(parts.driver.view()), state_(parts.in.jobs.size()) {}

void JobLifecycle::note_event(double t) {
  last_event_s_ = std::max(last_event_s_, t);
}

void JobLifecycle::process_ends(const std::vector<RunClock::End>& ends) {
  for (const RunClock::End& e : ends) {
    const JobState& s = state_[e.job];
    // A run stopped by a preemption leaves a stale end behind: skip it.
    if (parts_.clock.epoch(e.job) != e.epoch) continue;
    if (s.phase == Phase::SettingUp) {
      begin_run(e.job, e.time_s);
      continue;
    }
    if (s.phase != Phase::Running) throw std::logic_error("job " + std::to_string(e.job) + " ended twice");
    finish_job(e.job, e.time_s);
  }
}

void JobLifecycle::finish_job(JobIndex job, double now) {
  JobState& s = state_[job];
  view_.release(s.placement.gpus, job);
  parts_.recorder.completed(job, now, s.placement.gpus);
  rescale_tenants(s.placement.gpus, job, now);  // the co-tenants it leaves speed up
  s.phase = Phase::Done;
  s.iterations_done = in_.jobs[job].iterations;
  parts_.clock.invalidate(job);  // a ring's report racing a preemption-turned-completion is stale
  if (parts_.rings.holds(job)) parts_.rings.finish(job);
  if (s.flow) parts_.actors.retire(std::move(s.flow));
  note_event(now);
  parts_.driver.finished(job);
}

void JobLifecycle::rejected(JobIndex job, double now, const std::string& reason) {
  state_[job].phase = Phase::Done;
  parts_.recorder.rejected(job, now, reason);
}

}  // namespace vnsim::sim
