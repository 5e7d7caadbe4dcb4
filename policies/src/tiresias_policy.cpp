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

void TiresiasPolicy::update_queue(JobMemo& m, double service_gpu_s, double now_s) {
  const int q = queue_of(service_gpu_s - m.service_offset_gpu_s);
  if (q != m.queue) {
    m.queue = q;
    m.entered_queue_s = now_s;  // to the back of its new queue
  }
}

void TiresiasPolicy::reorder(JobMemo& m, const OrderKey& before) {
  const OrderKey after = order_key(m);
  if (!m.in_order) {
    order_.insert(after);
    m.in_order = true;
  } else if (after != before) {
    order_.erase(before);
    order_.insert(after);
  }
}

std::vector<Decision> TiresiasPolicy::decide(const SchedulerInput& input) {
  const double now = input.now_s;
  next_timer_s_ = std::numeric_limits<double>::infinity();
  ++call_;
  for (const RunningJob& r : input.running) {
    JobMemo& m = memo(r.index, r.spec->submit_s);
    const OrderKey before = order_key(m);
    m.was_running = true;
    update_queue(m, r.attained_gpu_s, now);
    reorder(m, before);
    m.call = call_;
    m.spec = r.spec;
    m.allowed = kAnyGpuType;
    m.placement = &r.placement;
    if (m.queue < static_cast<int>(params_.thresholds_gpu_s.size()) && r.spec->gpus > 0) {
      const double left = params_.thresholds_gpu_s[m.queue] - (r.attained_gpu_s - m.service_offset_gpu_s);
      next_timer_s_ = std::min(next_timer_s_, now + left / r.spec->gpus);
    }
  }
  for (const QueuedJob& q : input.queued) {
    JobMemo& m = memo(q.index, q.spec->submit_s);
    const OrderKey before = order_key(m);
    if (m.was_running) {
      m.was_running = false;
      m.pending_since_s = now;
    }
    update_queue(m, q.attained_gpu_s, now);
    if (params_.promote_knob > 0 && m.queue > 0 && m.pending_since_s >= 0 && q.spec->gpus > 0) {
      const double executed = (q.attained_gpu_s - m.service_offset_gpu_s) / q.spec->gpus;
      const double promote_at = m.pending_since_s + params_.promote_knob * executed;
      if (now >= promote_at) {
        m.service_offset_gpu_s = q.attained_gpu_s;
        m.queue = 0;
        m.entered_queue_s = now;
        m.pending_since_s = now;
      } else {
        next_timer_s_ = std::min(next_timer_s_, promote_at);
      }
    }
    reorder(m, before);
    m.call = call_;
    m.spec = q.spec;
    m.allowed = q.allowed_types;
    m.placement = nullptr;
  }
  // The order is kept between calls (a job moves only when its queue
  // changes), so a call walks it instead of sorting every job again. Jobs
  // not in this call's input (finished, rejected) leave it here.
  std::vector<PassCandidate> ordered;
  ordered.reserve(input.running.size() + input.queued.size());
  for (auto it = order_.begin(); it != order_.end();) {
    JobMemo& m = memos_[it->index];
    if (m.call != call_) {
      m.in_order = false;
      it = order_.erase(it);
      continue;
    }
    ordered.push_back(PassCandidate{it->index, m.spec, m.allowed, m.placement});
    ++it;
  }
  return priority_pass(input, ordered, *placement_, /*preemptive=*/true);
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
