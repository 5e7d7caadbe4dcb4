// Gavel's kept rounds in O(1) (issue 21, decision cost). A round that keeps
// every job (gavel_quiet.cpp) runs alone on one GPU type, and its full
// version then (a) settles each running job's counters to the round's time,
// in the running list's order, and (b) sums the type's totals again over the
// active jobs in tracked_'s order (recount_totals). Neither is read at once:
// a job's counters only at its next use, and the totals only by a fill that
// ranks a queued job with an allocation. So a kept round only notes its time
// (kept_rounds_) and marks the totals stale.
//
// Why the floating-point results are the full round's, bit for bit:
//  (a) A job's settle at a round reads and writes only the job's own memo
//      (from_s, time_s, steps_done, isolated_cum_s) and the round's time;
//      the sums it would also touch are summed again by (b). So the settles
//      of different jobs commute, and a job's own ones need only keep their
//      order: catch_up() replays its kept rounds in order with the same
//      operations (advance()), reset included, before anything reads the
//      memo or changes what a settle reads (run_type, run_partner, run_rate:
//      only after settle() in leave(); isolated_rate: in solve(), which
//      catches its jobs up first).
//  (b) The totals after a kept round are ((0 + v_1) + v_2 + ...) over the
//      active jobs then, in tracked_'s order then, v_i being job i's counter
//      (and from_s) after (a), then each later addend in order: a settle's
//      time, a job's leave or arrival (add_to_totals). rebuild_sums() sums
//      exactly that: tracked_'s order then is tracked_ with the later
//      track()/leave() changes undone (tracked_log_), v_i is the value a
//      job's replay of the last kept round left (kept_time_s, kept_from_s;
//      the replay of a job that left since ran in its leave()), and the
//      later addends are noted in order (stored_adds_, from_adds_). The
//      count of running jobs is a whole number, exact in any order, and is
//      kept at once. A round ranked sums again from scratch and clears all.
// A kept round thus costs O(1) and each job replays the kept rounds it ran
// through once, reading one memo instead of walking all of them per round.
#include <stdexcept>

#include "vnsim/policies/gavel_policy.hpp"

namespace vnsim {

// The running job's counters, settled through every kept round so far, as
// each of those rounds settled them.
void GavelPolicy::catch_up(JobMemo& m, JobIndex job) {
  const std::size_t last = kept_end();
  if (m.state != JobState::Running || m.kept_seen >= last) return;
  if (m.kept_seen < kept_base_) throw std::logic_error("gavel: a running job's kept rounds were forgotten");
  for (std::size_t k = m.kept_seen; k < last; ++k) {
    const KeptRound& r = kept_rounds_[k - kept_base_];
    advance(m, job, r.now_s);
    if (r.reset) {
      // init_counters() at the round's reset, after its settle.
      m.time_s.assign(types_, params_.round_s / 2);
      m.reset_seen = r.resets;
    }
  }
  m.kept_seen = last;
  m.kept_mark = last - 1;
  m.kept_time_s = m.time_s.empty() ? 0 : m.time_s[0];
  m.kept_from_s = m.from_s;
}

// A kept round at `now`: what its settles (every active job runs, so each
// is settled once) and its reset (each active job renewed once) would have
// counted, its time for the jobs' replay, and the sums left stale.
void GavelPolicy::keep_counters(double now, bool reset) {
  settles_ += tracked_.size();
  if (reset) renewals_ += tracked_.size();
  kept_rounds_.push_back(KeptRound{now, resets_, reset});
  sums_stale_ = true;
  stored_adds_.clear();
  from_adds_.clear();
  tracked_log_.clear();
}

void GavelPolicy::note_tracked(JobIndex job, std::size_t pos, bool left) {
  if (sums_stale_) tracked_log_.push_back(TrackedChange{job, pos, left});
}

// The one type's sums as the last kept round summed them, plus the later
// addends in order (the comment at the top).
void GavelPolicy::rebuild_sums() {
  std::vector<JobIndex> order = tracked_;
  for (auto it = tracked_log_.rbegin(); it != tracked_log_.rend(); ++it) {
    if (!it->left) {
      order.pop_back();
    } else if (it->pos == order.size()) {
      order.push_back(it->job);
    } else {
      order.push_back(order[it->pos]);
      order[it->pos] = it->job;
    }
  }
  const std::size_t mark = kept_end() - 1;
  double stored = 0, from = 0;
  for (JobIndex j : order) {
    JobMemo& m = memos_[j];
    catch_up(m, j);
    if (m.kept_mark != mark) throw std::logic_error("gavel: a kept round's job was not replayed");
    stored += m.kept_time_s;
    from += m.kept_from_s;
  }
  for (double a : stored_adds_) stored += a;
  for (double a : from_adds_) from += a;
  stored_time_[0] = stored;
  accruing_from_[0] = from;
  sums_stale_ = false;
  stored_adds_.clear();
  from_adds_.clear();
  tracked_log_.clear();
  forget_replayed_rounds();
}

// Once every running job has replayed every kept round, none is read again:
// a job that starts running later takes kept_end() as its kept_seen
// (track()). Called where that holds: after rebuild_sums() (the jobs tracked
// at the last kept round, caught up there, and those tracked since, which
// start at its end) and after a ranked round's settle_all().
void GavelPolicy::forget_replayed_rounds() {
  kept_base_ += kept_rounds_.size();
  kept_rounds_.clear();
}

std::vector<double> GavelPolicy::time_counters_of(JobIndex job) const {
  return job < memos_.size() ? memos_[job].time_s : std::vector<double>{};
}

std::vector<double> GavelPolicy::type_time_totals(double now) {
  return type_time_now(now);
}

}  // namespace vnsim
