#include "vnsim/policies/policy_driver.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <ctime>
#include <numeric>
#include <stdexcept>
#include <type_traits>
#include <variant>

#include "vnsim/core/error.hpp"
#include "vnsim/core/feasibility.hpp"

namespace vnsim {
namespace {

// A policy that keeps answering with decisions at one instant is looping.
constexpr int kMaxDecideRoundsPerInstant = 10000;
// A round-based policy may wait a few rounds on an idle cluster before it
// starts anything; one that never does must not spin forever on its timer.
constexpr int kMaxIdleTimerWakes = 1000;

// The entry of `job` in a list kept in the order of `rank` (a per-job
// number), found by binary search; nullptr when the list does not hold it.
template <class Entry, class Rank>
const Entry* find_ranked(const std::vector<Entry>& list, JobIndex job, const std::vector<Rank>& rank) {
  const auto it = std::lower_bound(list.begin(), list.end(), rank[job],
                                   [&](const Entry& e, Rank r) { return rank[e.index] < r; });
  return it != list.end() && it->index == job ? &*it : nullptr;
}

// CPU time of the whole process, so that threads a policy starts inside
// decide() are counted; a system call (DecisionCost says which calls pay it).
double process_cpu_s() {
  timespec t{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}

}  // namespace

// The queue is in arrival rank and the running list in start order, so a
// changed job's entry is found by binary search in the lists lent to the
// policy for the call.
class PolicyDriver::Changes final : public InputChanges {
 public:
  Changes(const PolicyDriver& driver, const SchedulerInput& input) : d_(driver), in_(input) {}
  const std::vector<JobIndex>& jobs() const override { return d_.changed_; }
  const QueuedJob* queued(JobIndex job) const override {
    if (job >= d_.phase_.size() || d_.phase_[job] != Phase::Queued) return nullptr;
    return find_ranked(in_.queued, job, d_.arrival_rank_);
  }
  const RunningJob* running(JobIndex job) const override {
    if (job >= d_.phase_.size() || d_.phase_[job] != Phase::Running) return nullptr;
    return find_ranked(in_.running, job, d_.start_seq_);
  }

 private:
  const PolicyDriver& d_;
  const SchedulerInput& in_;
};

PolicyDriver::PolicyDriver(const Cluster& cluster, const Topology& topology, const GpuCatalog& gpu_catalog,
                           const ModelCatalog& models, const std::vector<JobSpec>& jobs, Policy& policy,
                           PolicyExecutor& executor)
    : cluster_(cluster),
      gpu_catalog_(gpu_catalog),
      models_(models),
      jobs_(jobs),
      policy_(policy),
      executor_(executor),
      view_(cluster, topology),
      estimator_(topology, gpu_catalog, models),
      phase_(jobs.size(), Phase::NotArrived),
      arrival_order_(jobs.size()),
      arrival_rank_(jobs.size()),
      start_seq_(jobs.size(), 0),
      requeued_at_(jobs.size(), 0),
      stale_running_(jobs.size(), 0),
      is_changed_(jobs.size(), 0) {
  for (std::size_t i = 0; i < jobs.size(); ++i)
    if (!std::isfinite(jobs[i].submit_s))
      throw InputError("job '" + jobs[i].id + "' (index " + std::to_string(i) +
                       "): submit time is not finite");
  std::iota(arrival_order_.begin(), arrival_order_.end(), JobIndex{0});
  std::stable_sort(arrival_order_.begin(), arrival_order_.end(),
                   [&](JobIndex a, JobIndex b) { return jobs[a].submit_s < jobs[b].submit_s; });
  for (std::size_t i = 0; i < arrival_order_.size(); ++i) arrival_rank_[arrival_order_[i]] = i;
}

std::optional<double> PolicyDriver::next_arrival_s() const {
  if (!arrivals_left()) return std::nullopt;
  return jobs_[arrival_order_[next_arrival_]].submit_s;
}

void PolicyDriver::mark_done(JobIndex job) {
  phase_.at(job) = Phase::Done;
}

void PolicyDriver::process_arrivals(double now) {
  while (next_arrival_ < arrival_order_.size() && jobs_[arrival_order_[next_arrival_]].submit_s <= now) {
    const JobIndex j = arrival_order_[next_arrival_++];
    if (phase_[j] == Phase::Done) continue;  // finished or rejected by an earlier attempt
    const JobProgress progress = executor_.arrived(j, now);
    if (auto why = why_infeasible(jobs_[j], cluster_, gpu_catalog_, models_)) {
      phase_[j] = Phase::Done;
      executor_.rejected(j, now, *why);
      continue;
    }
    phase_[j] = Phase::Queued;
    // Later in submission order than every job queued now.
    queued_.push_back(queue_entry(j, progress));
    mark_changed(j);
  }
}

void PolicyDriver::mark_changed(JobIndex job) {
  if (is_changed_[job]) return;
  is_changed_[job] = 1;
  changed_.push_back(job);
}

// The alone-estimate scaled to the iterations left (unscaled for a job
// that has done none, so the first estimate is the estimator's own value).
QueuedJob PolicyDriver::queue_entry(JobIndex job, const JobProgress& progress) {
  const JobSpec& spec = jobs_[job];
  const GpuTypeMask allowed = allowed_gpu_types(spec, cluster_, gpu_catalog_, models_);
  double estimate = estimator_.estimate_s(spec, allowed);
  if (progress.iterations_done > 0 && estimate >= 0 && spec.iterations > 0)
    estimate *= static_cast<double>(spec.iterations - progress.iterations_done) /
                static_cast<double>(spec.iterations);
  return QueuedJob{job, &spec, progress.attained_gpu_s, estimate, allowed};
}

// A round of a round-based policy preempts and starts hundreds of jobs in
// one batch of decisions (Gavel rotates about 750 per round on the 10k
// multi-node-heavy trace). Erasing each from the running list and inserting
// it into the queue at once cost O(queue) per job; in a batch the entries are
// only noted and flush_running() and flush_queue() pass over each list once.
void PolicyDriver::requeue(JobIndex job, const JobProgress& progress) {
  if (phase_[job] == Phase::Running) {
    ++stale_running_[job];
    ++stale_total_;
  }
  phase_[job] = Phase::Queued;
  requeued_.push_back(queue_entry(job, progress));
  requeued_at_[job] = requeued_.size();
  queue_dirty_ = true;
  mark_changed(job);
  if (!batching_) {
    flush_running();
    flush_queue();
  }
}

void PolicyDriver::finished(JobIndex job) {
  // Only the list the job is in is searched (by rank, both lists are kept
  // in order): a completion is one of the most frequent events, and both
  // lists grow with the cluster. In a batch the entry is dropped at the
  // batch's flush.
  if (phase_[job] == Phase::Running) {
    if (batching_ || stale_total_ > 0) {
      ++stale_running_[job];
      ++stale_total_;
      if (!batching_) flush_running();
    } else if (const RunningJob* r = find_ranked(running_, job, start_seq_)) {
      running_.erase(running_.begin() + (r - running_.data()));
      ++list_passes_;
    }
  } else if (phase_[job] == Phase::Queued) {
    queue_dirty_ = true;
  }
  phase_[job] = Phase::Done;
  if (!batching_) flush_queue();
  mark_changed(job);
}

void PolicyDriver::moved(JobIndex job, const Placement& placement) {
  if (stale_total_ > 0) {
    // A stale entry of the job may sit before its live one; every entry
    // gets the placement, as the stale ones are dropped anyway.
    for (RunningJob& r : running_)
      if (r.index == job) r.placement = placement;
    ++list_passes_;
  } else if (const RunningJob* r = find_ranked(running_, job, start_seq_)) {
    running_[static_cast<std::size_t>(r - running_.data())].placement = placement;
  }
  mark_changed(job);
}

// Drops each job's stale entries, which come before its live one (the
// running list is in start order).
void PolicyDriver::flush_running() const {
  if (stale_total_ == 0) return;
  auto out = running_.begin();
  for (auto it = running_.begin(); it != running_.end(); ++it) {
    if (stale_running_[it->index] > 0) {
      --stale_running_[it->index];
      continue;
    }
    if (out != it) *out = std::move(*it);
    ++out;
  }
  running_.erase(out, running_.end());
  stale_total_ = 0;
  ++list_passes_;
}

// Keeps the queued entries of jobs still queued and not requeued since,
// sorts each requeued job's last entry into submission order and merges.
// In a batch the queue is always filtered: a started or rejected job's
// entry stays behind until then.
void PolicyDriver::flush_queue() const {
  if (!queue_dirty_ && !batching_) return;
  queue_dirty_ = false;
  std::erase_if(queued_, [&](const QueuedJob& q) {
    return phase_[q.index] != Phase::Queued || requeued_at_[q.index] != 0;
  });
  ++list_passes_;
  if (requeued_.empty()) return;
  const std::size_t kept = queued_.size();
  for (std::size_t i = 0; i < requeued_.size(); ++i) {
    const JobIndex j = requeued_[i].index;
    if (requeued_at_[j] == i + 1 && phase_[j] == Phase::Queued) queued_.push_back(std::move(requeued_[i]));
  }
  for (const QueuedJob& q : requeued_) requeued_at_[q.index] = 0;
  requeued_.clear();
  const auto by_rank = [&](const QueuedJob& a, const QueuedJob& b) {
    return arrival_rank_[a.index] < arrival_rank_[b.index];
  };
  std::sort(queued_.begin() + static_cast<std::ptrdiff_t>(kept), queued_.end(), by_rank);
  std::inplace_merge(queued_.begin(), queued_.begin() + static_cast<std::ptrdiff_t>(kept), queued_.end(),
                     by_rank);
}

// While it lives, decisions are applied as one batch; at its end (also when
// a decision is refused with an exception) the lists are brought up to date.
class PolicyDriver::Batch {
 public:
  explicit Batch(PolicyDriver& d) : d_(d) { d_.batching_ = true; }
  ~Batch() {
    d_.batching_ = false;
    d_.queue_dirty_ = true;  // started and rejected jobs leave the queue
    d_.flush_running();
    d_.flush_queue();
  }
  Batch(const Batch&) = delete;
  Batch& operator=(const Batch&) = delete;

 private:
  PolicyDriver& d_;
};

void PolicyDriver::run_policy(double now) {
  for (int round = 0;; ++round) {
    if (round == kMaxDecideRoundsPerInstant)
      throw std::logic_error("policy '" + policy_.name() + "' returned decisions " +
                             std::to_string(kMaxDecideRoundsPerInstant) +
                             " times in a row at t=" + std::to_string(now) + "; it is looping");
    if (policy_.reads_running_progress()) executor_.refresh_running(running_, now);
    // The driver's vectors are lent to the policy for the call instead of
    // copied: decide() runs on every event and the queue can be long.
    SchedulerInput input;
    input.now_s = now;
    input.view = &view_;
    input.queued = std::move(queued_);
    input.running = std::move(running_);
    const Changes changes(*this, input);
    input.changes = &changes;
    const bool at_timer = timer_s_ && *timer_s_ <= now;
    const bool unchanged = changed_.empty();
    const bool timed = cost_.measures(at_timer, unchanged);
    const double cpu0 = timed ? process_cpu_s() : 0;
    const auto t0 = std::chrono::steady_clock::now();
    std::vector<Decision> decisions = policy_.decide(input);
    const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    cost_.add(at_timer, unchanged, !decisions.empty(), input.queued.size() + input.running.size(), wall,
              timed ? std::optional<double>(process_cpu_s() - cpu0) : std::nullopt);
    for (JobIndex j : changed_) is_changed_[j] = 0;
    changed_.clear();
    queued_ = std::move(input.queued);
    running_ = std::move(input.running);
    if (decisions.empty()) return;
    const Batch batch(*this);
    for (const Decision& d : decisions) apply(d, now);
  }
}

void PolicyDriver::check_phase(JobIndex job, Phase wanted, const char* action) const {
  if (job < phase_.size() && phase_[job] == wanted) return;
  throw std::logic_error("policy '" + policy_.name() + "' tried to " + action + " job " +
                         std::to_string(job) +
                         (job < phase_.size() ? " ('" + jobs_[job].id + "')" : std::string()) +
                         ", which is " + (wanted == Phase::Queued ? "not queued" : "not running"));
}

void PolicyDriver::apply(const Decision& d, double now) {
  std::visit(
      [&](const auto& x) {
        using T = std::decay_t<decltype(x)>;
        if constexpr (std::is_same_v<T, StartJob>) {
          check_phase(x.job, Phase::Queued, "start");
          phase_[x.job] = Phase::Running;
          start_seq_[x.job] = starts_++;
          running_.push_back(executor_.start(x, now));
          mark_changed(x.job);
        } else if constexpr (std::is_same_v<T, RejectJob>) {
          check_phase(x.job, Phase::Queued, "reject");
          reject(x.job, now, x.reason);
        } else if constexpr (std::is_same_v<T, PreemptJob>) {
          check_phase(x.job, Phase::Running, "preempt");
          executor_.preempt(x.job, now);
        } else {
          check_phase(x.job, Phase::Running, "resize");
          executor_.resize(x, now);
        }
      },
      d);
  executor_.decision_applied(now);
}

void PolicyDriver::reject(JobIndex job, double now, const std::string& reason) {
  phase_[job] = Phase::Done;
  mark_changed(job);
  executor_.rejected(job, now, reason);
}

void PolicyDriver::update_timer(double now, bool all_done) {
  timer_s_.reset();
  if (auto t = policy_.next_timer_s(now); t && *t > now && !all_done) timer_s_ = *t;
}

bool PolicyDriver::guard_against_idle_deadlock(double now) {
  const bool idle =
      running_.empty() && !arrivals_left() && !queued_.empty() && !executor_.will_change_by_itself();
  if (!idle) {
    idle_timer_wakes_ = 0;
    return false;
  }
  if (timer_s_ && ++idle_timer_wakes_ <= kMaxIdleTimerWakes) return false;
  const std::vector<QueuedJob> left = std::move(queued_);
  queued_.clear();
  for (const QueuedJob& q : left) reject(q.index, now, executor_.idle_reason(q.index));
  timer_s_.reset();
  return true;
}

}  // namespace vnsim
