// Gavel's per-type time counters, kept lazily. Gavel's scheduler credits a
// job's time once per round, when the round's micro-task on its GPUs ends
// (Gavel's public code, scheduler/scheduler.py: _done_callback adds the
// micro-task's execution time to _job_time_so_far[job][worker_type];
// Narayanan et al., OSDI'20, round-based mechanism). Here a running job's
// counters are brought up to date when they are read (every running job at
// a round) or when the job itself changes (it starts, stops, moves or loses
// its space-sharing partner), not at every arrival and completion: the cost
// of an event follows the jobs it changes, not the jobs running.
//
// Between rounds a fill needs only each type's total, which is kept as a sum:
// the settled counters of the active jobs, plus (now - from) for each job
// running alone on the type, as count x now - sum of from.
#include <algorithm>
#include <limits>

#include "type_throughput.hpp"
#include "vnsim/policies/gavel_policy.hpp"

namespace vnsim {
namespace {

constexpr JobIndex kNoPartner = std::numeric_limits<JobIndex>::max();  // as partner_of's none

}  // namespace

// Gavel's pseudo-count, at a job's first call and after each reset: a reset
// renews the counters of the jobs active then, and those of any other job
// when it is next active (memos_ holds every job of the trace, so renewing
// them all at each reset grew with the trace, not the queue).
void GavelPolicy::init_counters(JobMemo& m) {
  if (m.time_s.size() != types_ || m.reset_seen != resets_) {
    m.time_s.assign(types_, params_.round_s / 2);
    m.reset_seen = resets_;
    ++renewals_;
  }
}

// Adds (sign +1) or takes out (-1) the job's part of the per-type totals.
// The count of jobs accruing is a whole number, exact in any order, so it
// is kept at once even while a kept round leaves the sums (gavel_kept.cpp).
void GavelPolicy::add_to_totals(const JobMemo& m, double sign) {
  for (std::size_t j = 0; j < types_ && j < m.time_s.size(); ++j)
    add_to_sum(stored_time_, stored_adds_, j, sign * m.time_s[j]);
  if (m.state == JobState::Running && m.run_type >= 0 && m.run_partner == kNoPartner) {
    const auto t = static_cast<std::size_t>(m.run_type);
    accruing_[t] += sign;
    add_to_sum(accruing_from_, from_adds_, t, sign * m.from_s);
    if (m.run_rate > 0) kept_alone_ = sign > 0 ? kept_alone_ + 1 : kept_alone_ - 1;
  }
}

// One addend of a per-type sum: added, or, while a kept round has left the
// sums to be summed again (one GPU type), noted in order for rebuild_sums.
void GavelPolicy::add_to_sum(std::vector<double>& sum, std::vector<double>& adds, std::size_t type,
                             double value) {
  if (sums_stale_)
    adds.push_back(value);
  else
    sum[type] += value;
}

// The running job's time from `from_s` to now, into its counter (or its
// pair's), its estimated steps and, for finish-time fairness, their time at
// the isolated share: the same terms the per-call walk added. Returns the
// time added to a type's counter of its own (0: none), for the sums.
double GavelPolicy::advance(JobMemo& m, JobIndex job, double now) {
  if (!(now > m.from_s)) return 0;
  const double dt = now - m.from_s;
  m.from_s = now;
  m.accounted_until_s = now;
  if (m.run_type < 0) return 0;
  const auto t = static_cast<std::size_t>(m.run_type);
  if (m.run_partner == kNoPartner)
    m.time_s[t] += dt;
  else if (job < m.run_partner)
    pair_time(job, m.run_partner, static_cast<int>(types_))[t] += dt;
  const double steps = dt * m.run_rate;
  m.steps_done += steps;
  if (m.isolated_rate > 0) m.isolated_cum_s += steps / m.isolated_rate;
  return m.run_partner == kNoPartner ? dt : 0;
}

// Brings the running job up to now: first the kept rounds since its last
// settle (gavel_kept.cpp), then the time since, into the sums too.
void GavelPolicy::settle(JobMemo& m, JobIndex job, double now) {
  if (m.state != JobState::Running) return;
  catch_up(m, job);
  ++settles_;
  const double dt = advance(m, job, now);
  if (dt > 0 && m.tracked != kUntracked) {
    const auto t = static_cast<std::size_t>(m.run_type);
    add_to_sum(stored_time_, stored_adds_, t, dt);
    add_to_sum(accruing_from_, from_adds_, t, dt);
  }
}

void GavelPolicy::track(JobMemo& m, JobIndex job) {
  // One more active job: back in the last solve's set (its stamp kept, so
  // that it counts as of the set when it leaves again), or out of it.
  if (in_last_solve(m)) {
    --unsolved_;
  } else {
    ++unsolved_;
    m.track_stamp = stamp_;
  }
  note_tracked(job, tracked_.size(), false);
  m.tracked = tracked_.size();
  m.kept_seen = kept_end();
  tracked_.push_back(job);
  add_to_totals(m, +1);
}

// Settles the job and takes it out of the active jobs; a partner it leaves
// runs on alone from now.
void GavelPolicy::leave(JobIndex job, double now) {
  JobMemo& m = memos_[job];
  settle(m, job, now);
  if (m.tracked != kUntracked) {
    add_to_totals(m, -1);
    if (in_last_solve(m))
      ++unsolved_;
    else
      --unsolved_;
    m.leave_stamp = stamp_;
    note_tracked(job, m.tracked, true);
    const JobIndex last = tracked_.back();
    tracked_[m.tracked] = last;
    memos_[last].tracked = m.tracked;
    tracked_.pop_back();
    m.tracked = kUntracked;
  }
  if (m.state == JobState::Queued) queued_by_gpus_.erase({m.spec->gpus, job});
  if (m.state == JobState::Running && m.run_partner != kNoPartner && m.run_partner < memos_.size()) {
    JobMemo& p = memos_[m.run_partner];
    if (p.state == JobState::Running && p.run_partner == job) {
      settle(p, m.run_partner, now);
      const bool tracked = p.tracked != kUntracked;
      if (tracked) add_to_totals(p, -1);
      p.run_partner = kNoPartner;
      p.run_rate = p.row[static_cast<std::size_t>(p.run_type)];
      if (tracked) add_to_totals(p, +1);
    }
  }
  m.state = JobState::None;
}

// One job's entry in the call's input (queued, running, or neither: gone).
// A running job seen again unchanged, or a queued one still queued, costs
// nothing, so the full read of an input without changes is idempotent.
void GavelPolicy::observe(JobIndex job, const QueuedJob* q, const RunningJob* r, const SchedulerInput& input,
                          std::vector<Decision>& out) {
  const double now = input.now_s;
  JobMemo& m = memos_[job];
  // A job of a put-off solve queued again (not by a round: a round solves
  // first) may be ranked by priority before the next round, with its X.
  if (pending_ && q != nullptr && in_last_solve(m)) solve_pending(input);
  const Cluster& cluster = input.view->cluster();
  int type = -1;
  JobIndex partner = kNoPartner;
  if (r != nullptr) {
    type = placement_type(cluster, r->placement);
    if (type >= static_cast<int>(types_)) type = -1;
    partner = partner_of(*input.view, *r);
    if (m.state == JobState::Running && m.run_start_s == r->start_s && m.run_type == type &&
        m.run_partner == partner)
      return;
  }
  if (q != nullptr && m.state == JobState::Queued) {
    m.allowed = q->allowed_types;
    row_of(input.view->topology(), *q->spec, m);
    return;
  }
  leave(job, now);
  if (q == nullptr && r == nullptr) return;
  m.spec = q != nullptr ? q->spec : r->spec;
  init_counters(m);
  const Topology& topology = input.view->topology();
  if (q != nullptr) {
    m.allowed = q->allowed_types;
    const std::vector<double>& row = row_of(topology, *q->spec, m);
    if (std::none_of(row.begin(), row.end(), [](double t) { return t > 0; })) {
      out.emplace_back(std::in_place_type<RejectJob>,
                       RejectJob{job, "gavel: no GPU type of the cluster has " +
                                          std::to_string(q->spec->gpus) + " GPUs the job may use"});
      return;
    }
    m.state = JobState::Queued;
    queued_by_gpus_.insert({q->spec->gpus, job});
    track(m, job);
    return;
  }
  const std::vector<double>& row = row_of(topology, *r->spec, m);
  m.state = JobState::Running;
  m.run_type = type;
  m.run_start_s = r->start_s;
  m.run_partner = partner;
  m.from_s = std::max(r->start_s, m.accounted_until_s);
  m.run_rate = type < 0 ? 0 : row[static_cast<std::size_t>(type)];
  // Time shared with a partner is the pair's (counted once, by the lower
  // index), at the pair's rate.
  if (type >= 0 && partner != kNoPartner && partner < memos_.size() && memos_[partner].spec != nullptr)
    m.run_rate *= pair_fraction(cluster, type, *r->spec, *memos_[partner].spec);
  track(m, job);
}

// Brings the policy's view of the jobs up to `input`: only the changed jobs
// when the driver says which, else every job (a test's input, a VC's share).
void GavelPolicy::read_input(const SchedulerInput& input, std::vector<Decision>& out) {
  if (input.changes != nullptr) {
    const std::vector<JobIndex>& changed = input.changes->jobs();
    if (!changed.empty()) memo(*std::max_element(changed.begin(), changed.end()));
    // Specs first: a job starting with a space-sharing partner prices the
    // pair with the partner's spec.
    for (JobIndex j : changed) {
      if (const RunningJob* r = input.changes->running(j)) memos_[j].spec = r->spec;
    }
    for (JobIndex j : changed) observe(j, input.changes->queued(j), input.changes->running(j), input, out);
    return;
  }
  JobIndex last = 0;
  for (const RunningJob& r : input.running) last = std::max(last, r.index);
  for (const QueuedJob& q : input.queued) last = std::max(last, q.index);
  if (!input.running.empty() || !input.queued.empty()) memo(last);
  for (const RunningJob& r : input.running) {
    memos_[r.index].spec = r.spec;
    memos_[r.index].seen_in_call = calls_;
  }
  for (const QueuedJob& q : input.queued) memos_[q.index].seen_in_call = calls_;
  std::vector<JobIndex> gone;
  for (JobIndex j : tracked_)
    if (memos_[j].seen_in_call != calls_) gone.push_back(j);
  for (JobIndex j : gone) leave(j, input.now_s);
  for (const RunningJob& r : input.running) observe(r.index, nullptr, &r, input, out);
  for (const QueuedJob& q : input.queued) observe(q.index, &q, nullptr, input, out);
}

// At a round ranked: every running job settled to now, and the totals summed
// again from the counters (the running sums drift by rounding between rounds).
void GavelPolicy::settle_all(const SchedulerInput& input) {
  for (const RunningJob& r : input.running) settle(memos_[r.index], r.index, input.now_s);
  forget_replayed_rounds();
}

void GavelPolicy::recount_totals() {
  sums_stale_ = false;
  stored_adds_.clear();
  from_adds_.clear();
  tracked_log_.clear();
  std::fill(stored_time_.begin(), stored_time_.end(), 0.0);
  std::fill(accruing_.begin(), accruing_.end(), 0.0);
  std::fill(accruing_from_.begin(), accruing_from_.end(), 0.0);
  kept_alone_ = 0;
  for (JobIndex j : tracked_) add_to_totals(memos_[j], +1);
}

std::vector<double> GavelPolicy::type_time_now(double now) {
  if (sums_stale_) rebuild_sums();
  std::vector<double> out(types_);
  for (std::size_t j = 0; j < types_; ++j)
    out[j] = stored_time_[j] + (accruing_[j] * now - accruing_from_[j]);
  return out;
}

}  // namespace vnsim
