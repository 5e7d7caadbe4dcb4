// Gavel's rounds that provably keep every job where it is (issue 21,
// decision cost): such a round only moves the time counters, so it is not
// ranked (gavel_policy.hpp, `skip_unchanged`).
//
// Why the round keeps everyone. Priorities X[m][j] / (time_m^j / time^j)
// move with time (a running job's counter grows, so its priority falls
// while a queued job's rises: RoundsAlternateTwoJobsOnOneGpuByPriority), so
// a round told of no change may still preempt. What the round decides is
// fixed, whatever X and the priorities, when
//  (a) the cluster has one GPU type and space sharing is off, so there are
//      no pair picks and no job has a partner (partner_of), and
//  (b) every active job runs alone on that type with a throughput > 0
//      there (`kept_alone_` counts them), so none is queued.
// The running jobs' GPUs sum to at most the type's capacity C, so in the
// priority pass (round()) each pick (job, type) finds room: the GPUs left
// are C minus the jobs chosen so far, at least the GPUs of the jobs not
// chosen yet. Every job with a pick (X > 0) is chosen for its own type,
// whatever the order, and take_in_order goes on while a job is left (room
// for the narrowest job stays). Work conservation then chooses the jobs
// without a pick (X = 0) on their fastest type with room, their own one
// (by (b), and by the same count of GPUs). Each running job is thus chosen
// for the type it runs on with no partner, so it is kept; no job is
// preempted and there is no queued job to start. The round's effects are
// then its solve when the active jobs are not the last solve's, a reset
// of the counters with it, the counters brought up to date (settle_all,
// recount_totals), the next round's time and the last round's planned
// moves dropped. keep_everyone() does these, the counters and their sums
// left to each job's next use with the same floating-point operations
// (gavel_kept.cpp), so later calls decide as after the full round, and
// ranks no pick (ranked_in_last_call() is 0).
//
// The solve is put off under max-min fairness, whose LP reads only the
// jobs' throughput rows and widths, both fixed while a job is active: X is
// read by a later round only when its jobs are still the active ones (else
// that round solves again), and that round solves then, over the same jobs
// in the same order, for the same X; or by a fill, for a job of the set
// queued again, which solves first (observe()). Only the isolated rates,
// which max-min fairness never reads, are set later than the full round
// set them. The other objectives read the jobs' progress and solve at once.
// The checks are O(1), kept by track(), leave() and add_to_totals(); so is
// the rest of a kept round but for the put-off solve's order, a copy of the
// running jobs' indices when the job set changed since the last solve.
#include "vnsim/policies/gavel_policy.hpp"

namespace vnsim {

// Whether the job was active at the last solve (real or put off): active
// before solved_stamp_, and still active or left after it.
bool GavelPolicy::in_last_solve(const JobMemo& m) const {
  return m.track_stamp < solved_stamp_ && (m.tracked != kUntracked || m.leave_stamp > solved_stamp_);
}

// The active jobs are now the last solve's set.
void GavelPolicy::note_solved() {
  solved_stamp_ = ++stamp_;
  ++stamp_;
  unsolved_ = 0;
  pending_ = false;
}

// A solve restarts the active jobs' counters once reset_s has passed:
// whether it does, with the reset's own state; the caller renews the jobs'
// counters (maybe_reset), or a kept round leaves that to each job's replay.
bool GavelPolicy::start_reset(double now) {
  if (now - last_reset_s_ < params_.reset_s) return false;
  ++resets_;
  pair_time_.clear();
  last_reset_s_ = now;
  return true;
}

void GavelPolicy::maybe_reset(double now) {
  if (!start_reset(now)) return;
  for (JobIndex j : tracked_) init_counters(memos_[j]);
}

bool GavelPolicy::round_keeps_everyone() const {
  return params_.skip_unchanged && types_ == 1 && !params_.space_sharing && kept_alone_ == tracked_.size() &&
         (unsolved_ == 0 || params_.objective == GavelObjective::MaxMinFairness);
}

void GavelPolicy::keep_everyone(const SchedulerInput& input) {
  bool reset = false;
  if (unsolved_ != 0) {
    // The round's active jobs, in its order: the running ones, all of them
    // tracked as running here (every active job runs), so without reading
    // their memos unless the counts differ (a test's partial input).
    pending_order_.clear();
    if (input.running.size() == tracked_.size()) {
      for (const RunningJob& r : input.running) pending_order_.push_back(r.index);
    } else {
      for (const RunningJob& r : input.running)
        if (memos_[r.index].state == JobState::Running) pending_order_.push_back(r.index);
    }
    pending_now_ = input.now_s;
    note_solved();
    pending_ = true;
    reset = start_reset(input.now_s);
  }
  keep_counters(input.now_s, reset);
  next_round_s_ = input.now_s + params_.round_s;
  for (const auto& moved : planned_) memos_[moved.first].planned_type = -1;
  planned_.clear();
  ranked_ = 0;
  ++skipped_rounds_;
}

void GavelPolicy::solve_pending(const SchedulerInput& input) {
  pending_ = false;
  std::vector<Active> jobs;
  jobs.reserve(pending_order_.size());
  for (JobIndex j : pending_order_) {
    const JobMemo& m = memos_[j];
    jobs.push_back(Active{j, m.spec, nullptr, m.row});
  }
  solve(input, pending_now_, jobs);
}

}  // namespace vnsim
