#include "vnsim/policies/tiresias_policy.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <tuple>

#include "priority_pass.hpp"
#include "vnsim/core/error.hpp"
#include "vnsim/policies/policy_registration.hpp"

namespace vnsim {
namespace {

// Service is a sum of GPUs x (t - start) terms, so at the crossing time it
// may come out a few ulps below the threshold; without this slack the job
// would be demoted one timer wake late.
bool reached(double service, double threshold) {
  return service >= threshold - 1e-9 * std::max(1.0, threshold);
}

}  // namespace

TiresiasPolicy::TiresiasPolicy(TiresiasParams params)
    : params_(std::move(params)), placement_(make_placement(params_.placement, params_.seed)) {
  for (std::size_t k = 0; k < params_.thresholds_gpu_s.size(); ++k)
    if (!(params_.thresholds_gpu_s[k] > 0) ||
        (k > 0 && params_.thresholds_gpu_s[k] <= params_.thresholds_gpu_s[k - 1]))
      throw InputError("tiresias: thresholds must be positive and increasing");
  if (!(params_.promote_knob >= 0)) throw InputError("tiresias: promote_knob must be >= 0");
}

int TiresiasPolicy::queue_of(double service_gpu_s) const {
  int k = 0;
  while (k < static_cast<int>(params_.thresholds_gpu_s.size()) &&
         reached(service_gpu_s, params_.thresholds_gpu_s[k]))
    ++k;
  return k;
}

TiresiasPolicy::JobMemo& TiresiasPolicy::memo(JobIndex job, double submit_s) {
  if (memos_.size() <= job) memos_.resize(job + 1);
  JobMemo& m = memos_[job];
  if (!m.seen) {
    m.seen = true;
    m.index = job;
    m.submit_s = submit_s;
    m.entered_queue_s = submit_s;
  }
  return m;
}

// The engine's rule (sim's JobLifecycle::refresh_running), with the same
// operands, so the queue comes out as if the engine had refreshed it.
double TiresiasPolicy::service_now(const JobMemo& m, double now) const {
  return m.held_service_gpu_s + static_cast<double>(m.placement.gpus.size()) * (now - m.held_since_s);
}

// When the running job's service, counted from `now`, reaches its queue's
// threshold (a queue below the last, GPUs > 0).
double TiresiasPolicy::crossing_from(const JobMemo& m, double now) const {
  const double left = params_.thresholds_gpu_s[m.queue] - (service_now(m, now) - m.service_offset_gpu_s);
  return now + left / m.spec->gpus;
}

void TiresiasPolicy::set_queue(JobMemo& m, int queue, double now) {
  if (queue == m.queue) return;
  m.queue = queue;
  m.entered_queue_s = now;  // to the back of its new queue
}

// Out of every structure the job is in; its memo keeps queue, times and
// offset. Call before changing anything its order key reads.
void TiresiasPolicy::leave(JobMemo& m) {
  if (m.state == State::Unknown) return;
  order_of(m.state).erase(order_key(m));
  if (m.state == State::Running) {
    running_gpus_ -= m.spec->gpus;
    m.placement = Placement{};
  } else {
    queued_gpus_.erase(queued_gpus_.find(m.spec->gpus));
    queued_gpus_total_ -= m.spec->gpus;
  }
  if (m.crossing_s != kNever) crossings_.erase(Timed{m.crossing_s, m.index});
  if (m.promotion_s != kNever) promotions_.erase(Timed{m.promotion_s, m.index});
  m.crossing_s = kNever;
  m.promotion_s = kNever;
  m.state = State::Unknown;
}

void TiresiasPolicy::now_running(JobMemo& m, const RunningJob& r, double held_since, double now) {
  leave(m);
  m.spec = r.spec;
  m.placement = r.placement;
  m.held_since_s = held_since;
  m.held_service_gpu_s = r.attained_gpu_s;
  set_queue(m, queue_of(service_now(m, now) - m.service_offset_gpu_s), now);
  m.state = State::Running;
  running_order_.insert(order_key(m));
  running_gpus_ += m.spec->gpus;
  update_crossing(m, now);
}

void TiresiasPolicy::now_queued(JobMemo& m, const QueuedJob& q, double now) {
  const bool was_running = m.state == State::Running;
  leave(m);
  if (was_running) m.pending_since_s = now;
  m.spec = q.spec;
  m.allowed = q.allowed_types;
  m.queued_service_gpu_s = q.attained_gpu_s;
  set_queue(m, queue_of(q.attained_gpu_s - m.service_offset_gpu_s), now);
  m.state = State::Queued;
  queued_order_.insert(order_key(m));
  queued_gpus_.insert(m.spec->gpus);
  queued_gpus_total_ += m.spec->gpus;
  update_promotion(m);
}

// When the running job's service reaches its queue's threshold.
void TiresiasPolicy::update_crossing(JobMemo& m, double now) {
  if (m.crossing_s != kNever) crossings_.erase(Timed{m.crossing_s, m.index});
  m.crossing_s = kNever;
  if (m.queue >= static_cast<int>(params_.thresholds_gpu_s.size()) || m.spec->gpus <= 0) return;
  m.crossing_s = crossing_from(m, now);
  crossings_.insert(Timed{m.crossing_s, m.index});
}

// When starvation promotes the queued job: it has waited, since it last
// ran, promote_knob x its executed time.
void TiresiasPolicy::update_promotion(JobMemo& m) {
  if (m.promotion_s != kNever) promotions_.erase(Timed{m.promotion_s, m.index});
  m.promotion_s = kNever;
  if (!(params_.promote_knob > 0) || m.queue == 0 || m.pending_since_s < 0 || m.spec->gpus <= 0) return;
  const double executed = (m.queued_service_gpu_s - m.service_offset_gpu_s) / m.spec->gpus;
  m.promotion_s = m.pending_since_s + params_.promote_knob * executed;
  promotions_.insert(Timed{m.promotion_s, m.index});
}

void TiresiasPolicy::read_changes(const SchedulerInput& input) {
  const double now = input.now_s;
  if (input.changes != nullptr) {
    for (JobIndex j : input.changes->jobs()) {
      if (const RunningJob* r = input.changes->running(j)) {
        // Not refreshed (reads_running_progress): the service at its start.
        now_running(memo(j, r->spec->submit_s), *r, r->start_s, now);
      } else if (const QueuedJob* q = input.changes->queued(j)) {
        now_queued(memo(j, q->spec->submit_s), *q, now);
      } else if (j < memos_.size()) {
        leave(memos_[j]);  // finished or rejected
      }
    }
    return;
  }
  // Read whole: running jobs' attained_gpu_s is their service now.
  for (const RunningJob& r : input.running) {
    JobMemo& m = memo(r.index, r.spec->submit_s);
    m.call = call_;
    now_running(m, r, now, now);
  }
  for (const QueuedJob& q : input.queued) {
    JobMemo& m = memo(q.index, q.spec->submit_s);
    m.call = call_;
    now_queued(m, q, now);
  }
  std::vector<JobIndex> gone;
  for (const std::set<OrderKey>* order : {&running_order_, &queued_order_})
    for (const OrderKey& k : *order)
      if (memos_[k.index].call != call_) gone.push_back(k.index);
  for (JobIndex j : gone) leave(memos_[j]);
}

// Running jobs whose service reached their queue's threshold move to the
// next queue. Those due within a margin are checked with the service rule
// itself, which decides, so a crossing time a few ulps late demotes on time.
void TiresiasPolicy::demote_crossed(double now) {
  const double margin = 1e-6 * (std::max(1.0, std::abs(now)) +
                                (params_.thresholds_gpu_s.empty() ? 0 : params_.thresholds_gpu_s.back()));
  std::vector<JobIndex> due;
  while (!crossings_.empty() && crossings_.begin()->first <= now + margin) {
    due.push_back(crossings_.begin()->second);
    memos_[due.back()].crossing_s = kNever;
    crossings_.erase(crossings_.begin());
  }
  for (JobIndex j : due) {
    JobMemo& m = memos_[j];
    running_order_.erase(order_key(m));
    set_queue(m, queue_of(service_now(m, now) - m.service_offset_gpu_s), now);
    running_order_.insert(order_key(m));
    update_crossing(m, now);
  }
}

// Starvation promotion: back to queue 0 with the executed time reset.
void TiresiasPolicy::promote_starved(double now) {
  while (!promotions_.empty() && promotions_.begin()->first <= now) {
    JobMemo& m = memos_[promotions_.begin()->second];
    promotions_.erase(promotions_.begin());
    m.promotion_s = kNever;
    queued_order_.erase(order_key(m));
    m.service_offset_gpu_s = m.queued_service_gpu_s;
    m.queue = 0;
    m.entered_queue_s = now;
    m.pending_since_s = now;
    queued_order_.insert(order_key(m));
  }
}

// The earliest crossing (recomputed at `now`, as a call that read every
// running job would) or promotion.
double TiresiasPolicy::timer_after(double now) {
  double t = kNever;
  if (!crossings_.empty()) {
    t = crossing_from(memos_[crossings_.begin()->second], now);
  }
  if (!promotions_.empty()) t = std::min(t, promotions_.begin()->first);
  return t;
}

// The pass's choice by GPU count, in priority order (priority_pass).
PassChoice TiresiasPolicy::choose(const SchedulerInput& input) {
  PassChoice choice;
  last_walk_ = 0;
  if (queued_order_.empty()) return choice;  // nothing to start
  const auto candidate = [&](const OrderKey& k) {
    const JobMemo& m = memos_[k.index];
    if (m.state == State::Running) return PassCandidate{m.index, m.spec, kAnyGpuType, &m.placement};
    return PassCandidate{m.index, m.spec, m.allowed, nullptr};
  };
  long long capacity = pass_capacity(input);
  // Every job fits: each is chosen, none is a victim, and the queued jobs
  // are started in their order.
  if (running_gpus_ + queued_gpus_total_ <= capacity) {
    for (const OrderKey& k : queued_order_) choice.chosen_queued.push_back(candidate(k));
    last_walk_ = queued_order_.size();
    return choice;
  }
  // Every running job before every queued one, and all of them fit: each
  // is chosen and none is a victim, so only the queued jobs are walked,
  // while the GPUs left can take the smallest of them.
  if ((running_order_.empty() || *running_order_.rbegin() < *queued_order_.begin()) &&
      running_gpus_ <= capacity) {
    capacity -= running_gpus_;
    for (auto it = queued_order_.begin(); it != queued_order_.end() && capacity >= *queued_gpus_.begin();
         ++it) {
      ++last_walk_;
      const int gpus = memos_[it->index].spec->gpus;
      if (gpus > capacity) continue;
      capacity -= gpus;
      choice.chosen_queued.push_back(candidate(*it));
    }
    return choice;
  }
  // A queued job ahead of a running one: both orders, merged, until the
  // GPUs left cannot take the smallest queued job; past that point no
  // queued job is chosen, so only the running ones are walked (to know the
  // victims), not the rest of a long queue.
  auto r = running_order_.begin();
  auto q = queued_order_.begin();
  const int smallest_queued = *queued_gpus_.begin();
  for (;;) {
    if (capacity < smallest_queued) q = queued_order_.end();
    const bool running_left = r != running_order_.end();
    const bool queued_left = q != queued_order_.end();
    if (!running_left && !queued_left) break;
    const bool running = !queued_left || (running_left && *r < *q);
    const OrderKey& k = running ? *r++ : *q++;
    ++last_walk_;
    const int gpus = memos_[k.index].spec->gpus;
    const bool chosen = gpus <= capacity;
    if (chosen) capacity -= gpus;
    if (!running && chosen) choice.chosen_queued.push_back(candidate(k));
    if (running && !chosen) choice.victims.push_back(candidate(k));
  }
  std::reverse(choice.victims.begin(), choice.victims.end());  // lowest priority first
  return choice;
}

std::vector<Decision> TiresiasPolicy::decide(const SchedulerInput& input) {
  const double now = input.now_s;
  ++call_;
  read_changes(input);
  demote_crossed(now);
  promote_starved(now);
  next_timer_s_ = timer_after(now);
  if (input.view == nullptr) return {};
  return place_chosen(input, choose(input), *placement_);
}

std::optional<double> TiresiasPolicy::next_timer_s(double now_s) const {
  if (next_timer_s_ > now_s && std::isfinite(next_timer_s_)) return next_timer_s_;
  return std::nullopt;
}

namespace {
const PolicyRegistration kTiresias(
    "tiresias", 50,
    ParamTable<TiresiasParams>()
        .numbers("thresholds", &TiresiasParams::thresholds_gpu_s,
                 "queue thresholds in GPU-s (K = count + 1 queues)", NumberRange::positive())
        .number("promote_knob", &TiresiasParams::promote_knob, "starvation promotion knob; 0 = off",
                NumberRange::non_negative())
        .placement(&TiresiasParams::placement, &TiresiasParams::seed),
    [](const TiresiasParams& p) { return std::make_unique<TiresiasPolicy>(p); });
}  // namespace

}  // namespace vnsim
