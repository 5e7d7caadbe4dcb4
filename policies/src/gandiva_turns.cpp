// Gandiva's turn order: the queued jobs by when they last ran (never-run
// ones by submission), ties by job index, kept sorted from call to call.
#include <algorithm>
#include <tuple>

#include "vnsim/policies/gandiva_policy.hpp"

namespace vnsim {

// Expects stopped_at_s_ and was_running_ already brought up to date for
// this call's queued jobs (decide does that first).
std::vector<const QueuedJob*> GandivaPolicy::turn_order(const SchedulerInput& input) {
  ++call_;
  const auto before = [](const Turn& a, const Turn& b) {
    return std::tie(a.since_s, a.job) < std::tie(b.since_s, b.job);
  };
  std::vector<Turn> joined;
  for (const QueuedJob& q : input.queued) {
    const JobIndex j = q.index;
    if (seen_call_.size() <= j) {
      seen_call_.resize(j + 1, 0);
      since_s_.resize(j + 1, 0);
      queued_.resize(j + 1, nullptr);
      in_turns_.resize(j + 1, 0);
    }
    seen_call_[j] = call_;
    since_s_[j] = stopped_at_s_[j] >= 0 ? stopped_at_s_[j] : q.spec->submit_s;
    queued_[j] = &q;
  }
  // Entries of jobs that left the queue (or whose key changed) go; the rest
  // keep their order.
  std::size_t kept = 0;
  for (const Turn& t : turns_) {
    if (seen_call_[t.job] == call_ && since_s_[t.job] == t.since_s) {
      turns_[kept++] = t;
    } else {
      in_turns_[t.job] = 0;
    }
  }
  turns_.resize(kept);
  for (const QueuedJob& q : input.queued)
    if (in_turns_[q.index] == 0) {
      in_turns_[q.index] = 1;
      joined.push_back(Turn{since_s_[q.index], q.index});
    }
  if (!joined.empty()) {
    std::sort(joined.begin(), joined.end(), before);
    const std::size_t old_size = turns_.size();
    turns_.insert(turns_.end(), joined.begin(), joined.end());
    std::inplace_merge(turns_.begin(), turns_.begin() + static_cast<std::ptrdiff_t>(old_size), turns_.end(),
                       before);
  }
  std::vector<const QueuedJob*> order;
  order.reserve(turns_.size());
  for (const Turn& t : turns_) order.push_back(queued_[t.job]);
  return order;
}

}  // namespace vnsim
