#include "vnsim/policies/gandiva_policy.hpp"

#include <algorithm>
#include <cmath>
#include <memory>
#include <tuple>
#include <variant>

#include "priority_pass.hpp"
#include "vnsim/core/error.hpp"
#include "vnsim/policies/policy_registration.hpp"

namespace vnsim {
namespace {

// Slice boundaries are multiples of slice_s; a timer wake-up a few ulps
// early must still count as the boundary.
constexpr double kTimeSlack = 1e-9;

}  // namespace

GandivaPolicy::GandivaPolicy(GandivaParams params)
    : params_(std::move(params)), placement_(make_placement(params_.placement, params_.seed)) {
  if (!(params_.slice_s > 0)) throw InputError("gandiva: slice_s must be > 0");
}

std::vector<Decision> GandivaPolicy::decide(const SchedulerInput& input) {
  const double now = input.now_s;
  const bool boundary = now + kTimeSlack >= next_slice_s_;
  auto grow = [&](JobIndex job) {
    if (stopped_at_s_.size() <= job) {
      stopped_at_s_.resize(job + 1, -1);
      was_running_.resize(job + 1, 0);
    }
  };
  for (const RunningJob& r : input.running) {
    grow(r.index);
    was_running_[r.index] = 1;
  }
  // Unpacking comes first and alone; the slice boundary stays due, so the
  // next call at this instant still rotates.
  if (params_.packing && boundary && input.view != nullptr) {
    std::vector<Decision> out = unpack_bad_pairs(input);
    for (const Decision& d : out) {
      stopped_at_s_[std::get<PreemptJob>(d).job] = now;
      was_running_[std::get<PreemptJob>(d).job] = 0;
    }
    if (!out.empty()) return out;
  }
  // Whose turn: queued jobs by when they last ran (never-run ones by
  // submission), then running jobs, the latest started first, so the one
  // that has held its GPUs longest is the first to be suspended.
  for (const QueuedJob& q : input.queued) {
    grow(q.index);
    if (was_running_[q.index] != 0) {
      was_running_[q.index] = 0;
      stopped_at_s_[q.index] = now;
    }
  }
  const std::vector<const QueuedJob*> order = turn_order(input);
  std::vector<const RunningJob*> holding;
  holding.reserve(input.running.size());
  for (const RunningJob& r : input.running) holding.push_back(&r);
  std::sort(holding.begin(), holding.end(), [](const RunningJob* a, const RunningJob* b) {
    return std::tie(b->start_s, a->index) < std::tie(a->start_s, b->index);
  });
  // With packing, a job asking for a share takes its turn in the pass like
  // any job and starts on its share of free GPUs, which later shares can
  // join. Jobs on shared GPUs stay out of the pass, which moves whole GPUs
  // only. Sharing a GPU in use waits until nothing else can start.
  const bool packing = params_.packing && input.view != nullptr;
  auto shares_a_gpu = [&](const RunningJob& r) {
    for (GpuId g : r.placement.gpus)
      if (input.view->tenants(g).size() > 1) return true;
    return false;
  };
  // The pass chooses by GPU count in this order, so once the queued jobs
  // before it have taken every GPU no later queued job can be chosen: those
  // stay out of the list (the running ones all follow), which gives the
  // same decisions at a cost that follows the GPUs, not the queue.
  std::vector<PassCandidate> ordered;
  ordered.reserve(order.size() + holding.size());
  int capacity = input.view != nullptr ? pass_capacity(input) : 0;
  for (const QueuedJob* q : order) {
    if (capacity <= 0) break;
    if (q->spec->gpus <= capacity) capacity -= q->spec->gpus;
    ordered.push_back(PassCandidate{q->index, q->spec, q->allowed_types, nullptr});
  }
  for (const RunningJob* r : holding)
    if (!packing || !shares_a_gpu(*r))
      ordered.push_back(PassCandidate{r->index, r->spec, kAnyGpuType, &r->placement});
  std::vector<Decision> out = priority_pass(input, ordered, *placement_, /*preemptive=*/boundary);
  if (packing)
    for (Decision& d : out)
      if (auto* s = std::get_if<StartJob>(&d))
        for (const QueuedJob* q : order)
          if (q->index == s->job && q->spec->gpu_milli < kGpuMilli) s->gpu_milli = q->spec->gpu_milli;
  if (packing && out.empty()) out = place_shares(input, order);
  if (packing && out.empty()) out = pack(input, order);
  // A job suspended now has waited since now, even if the engine next calls
  // only at the following boundary.
  std::size_t started = 0;
  bool preempted = false;
  for (const Decision& d : out) {
    if (const auto* p = std::get_if<PreemptJob>(&d)) {
      stopped_at_s_[p->job] = now;
      was_running_[p->job] = 0;
      preempted = true;
    }
    if (std::holds_alternative<StartJob>(d)) ++started;
  }
  bool measuring = false;  // a packed pair waits for its judgement at the next boundary
  for (const RunningJob& r : input.running)
    measuring = measuring || (r.index < packed_at_s_.size() && packed_at_s_[r.index] >= 0);
  for (const Decision& d : out)
    if (const auto* s = std::get_if<StartJob>(&d))
      measuring = measuring || (s->job < packed_at_s_.size() && packed_at_s_[s->job] >= 0);
  if (!preempted && !measuring && started == input.queued.size()) {
    next_slice_s_ = std::numeric_limits<double>::infinity();
  } else {
    // Oversubscribed: wake at the next boundary to rotate.
    std::size_t preemptions = 0;
    for (const Decision& d : out) preemptions += std::holds_alternative<PreemptJob>(d) ? 1 : 0;
    next_slice_s_ = next_boundary_s(now, boundary, input.queued.size() + preemptions - started);
  }
  return out;
}

double GandivaPolicy::next_boundary_s(double now_s, bool boundary, std::size_t waiting) const {
  const double slices_since_zero = std::floor((now_s + kTimeSlack) / params_.slice_s);
  if (params_.slice_jobs <= 0) return (slices_since_zero + 1) * params_.slice_s;
  // Between boundaries the one already set stays (slice_jobs > 0 only: with
  // one slice per boundary it is the next multiple of slice_s anyway).
  if (!boundary && std::isfinite(next_slice_s_) && next_slice_s_ > now_s) return next_slice_s_;
  const std::size_t per = static_cast<std::size_t>(params_.slice_jobs);
  const std::size_t slices = std::max<std::size_t>(1, (waiting + per - 1) / per);
  return (slices_since_zero + static_cast<double>(slices)) * params_.slice_s;
}

std::optional<double> GandivaPolicy::next_timer_s(double now_s) const {
  if (std::isfinite(next_slice_s_) && next_slice_s_ > now_s) return next_slice_s_;
  return std::nullopt;
}

namespace {
const PolicyRegistration kGandiva(
    "gandiva", 110,
    ParamTable<GandivaParams>()
        .number("slice_s", &GandivaParams::slice_s, "time-slice length in seconds when oversubscribed",
                NumberRange::positive())
        .placement(&GandivaParams::placement, &GandivaParams::seed)
        .choice("packing", &GandivaParams::packing, {{"off", false}, {"on", true}},
                "on: GPU sharing (jobs' gpu_milli shares; two jobs per GPU when oversubscribed, unpacked "
                "when their combined throughput < 1)")
        .whole("slice_jobs", &GandivaParams::slice_jobs, 0, 1000000,
               "0: a boundary every slice_s; N: the next boundary slice_s * ceil(jobs left waiting / N) "
               "later (docs/PERFORMANCE_HISTORY.md, \"Gandiva's slices on the heavy trace (tenth pass)\")"),
    [](const GandivaParams& p) { return std::make_unique<GandivaPolicy>(p); });
}  // namespace

}  // namespace vnsim
