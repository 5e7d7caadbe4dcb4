#pragma once
// The goodput policies' (Pollux, Sia) estimate of each job's progress
// between rounds: progress advances at the rate the last round estimated,
// from the later of the last update and the end of a restart.
#include <algorithm>
#include <vector>

#include "vnsim/policies/policy.hpp"

namespace vnsim {

// Progress since the last round at each active job's estimated rate. Only
// the active ones: a finished job's estimate is never read again, and
// visiting every job ever seen made each round of a long trace cost
// O(jobs in the trace) (82,247 memos per round at the end of Philly).
// `Memo` has seen, progress, rate, last_update_s and no_progress_until_s.
template <class Memo>
void advance_estimated_progress(std::vector<Memo>& memos, const SchedulerInput& input, double now) {
  const auto advance = [&](JobIndex job) {
    if (job >= memos.size() || !memos[job].seen) return;
    Memo& m = memos[job];
    const double from = std::max(m.last_update_s, m.no_progress_until_s);
    if (m.rate > 0 && now > from) m.progress += m.rate * (now - from);
    m.last_update_s = now;
  };
  for (const RunningJob& r : input.running) advance(r.index);
  for (const QueuedJob& q : input.queued) advance(q.index);
}

}  // namespace vnsim
