#include "vnsim/policies/themis_policy.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <set>
#include <tuple>
#include <type_traits>

#include "priority_pass.hpp"
#include "vnsim/core/error.hpp"
#include "vnsim/policies/policy_registration.hpp"

namespace vnsim {
namespace {

constexpr double kTimeSlack = 1e-9;

struct Bid {
  double rho;
  double elapsed_s;     // since submission; with remaining_s, for rho after waiting a lease
  double remaining_s;   // the job's estimate
  double gain_per_gpu;  // rise in log(rho) the job avoids by running this lease, per GPU
  PassCandidate candidate;
};

// The auction's order: the first round (the 1 - f fraction with the worst
// rho) by gain per GPU, then the rest by rho; job indices are unique, so
// both keys order totally.
bool before_by_rho(const Bid& a, const Bid& b) {
  return std::make_tuple(-a.rho, a.candidate.index) < std::make_tuple(-b.rho, b.candidate.index);
}
bool before_by_gain(const Bid& a, const Bid& b) {
  return std::make_tuple(-a.gain_per_gpu, -a.rho, a.candidate.index) <
         std::make_tuple(-b.gain_per_gpu, -b.rho, b.candidate.index);
}

// The auction: the bids in the order above after the leased jobs, given to
// priority_pass. This runs at every lease end, millions of times on a long
// queue (docs/PERFORMANCE_HISTORY.md), and the pass chooses a job only when its GPUs
// fit in the count left: so queued jobs wider than the count are left out,
// the order is made only as far as the pass can choose (two heaps popped
// one bid at a time), and of the bids after that only the running ones are
// passed on, in their order, because the pass preempts them (lowest
// priority first) and ignores queued jobs it does not choose. The pass's
// decisions are the same as with every bid in order.
// `rho_wait(bid)` is the bid's rho after waiting one more lease: only the
// first round's kept bids need it, so it is computed for them alone.
template <typename RhoWait>
std::vector<Decision> auction(const SchedulerInput& input, std::vector<PassCandidate> ordered,
                              std::vector<Bid>& bids, double fairness_knob, PlacementStrategy& placement,
                              std::size_t& ranked, const RhoWait& rho_wait) {
  const double share = (1 - fairness_knob) * static_cast<double>(bids.size());
  const std::size_t first =
      std::min(bids.size(), std::max<std::size_t>(1, static_cast<std::size_t>(std::ceil(share - 1e-9))));
  const auto mid = bids.begin() + static_cast<std::ptrdiff_t>(first);
  std::nth_element(bids.begin(), mid, bids.end(), before_by_rho);
  // GPUs the pass counts as left (priority_pass: the cluster, or the
  // capacity when capped), after the leased jobs it walks first.
  int capacity = input.view->cluster().gpu_count();
  if (input.gpu_capacity >= 0) capacity = std::min(capacity, input.gpu_capacity);
  for (const PassCandidate& c : ordered)
    if (c.spec->gpus <= capacity) capacity -= c.spec->gpus;
  // The count only falls, so a queued job wider than it is now is never
  // chosen: only the others, and every running bid (the pass may preempt
  // it), are ordered, each round of the auction on its own.
  const auto kept = [&](const Bid& b) {
    return b.candidate.placement != nullptr || b.candidate.spec->gpus <= capacity;
  };
  auto first_end = std::partition(bids.begin(), mid, kept);
  auto rest_end = std::partition(mid, bids.end(), kept);
  for (auto it = bids.begin(); it != first_end; ++it)
    it->gain_per_gpu =
        it->rho > 0 ? std::log(rho_wait(*it) / it->rho) / std::max(1, it->candidate.spec->gpus) : 0;
  int smallest = std::numeric_limits<int>::max();
  for (auto it = bids.begin(); it != first_end; ++it) smallest = std::min(smallest, it->candidate.spec->gpus);
  for (auto it = mid; it != rest_end; ++it) smallest = std::min(smallest, it->candidate.spec->gpus);
  // std heaps keep the largest first: "less" is "comes later".
  const auto later_by_gain = [](const Bid& a, const Bid& b) { return before_by_gain(b, a); };
  const auto later_by_rho = [](const Bid& a, const Bid& b) { return before_by_rho(b, a); };
  std::make_heap(bids.begin(), first_end, later_by_gain);
  bool rest_heaped = false;
  while (capacity >= smallest && (first_end != bids.begin() || rest_end != mid)) {
    const Bid* next = nullptr;
    if (first_end != bids.begin()) {
      std::pop_heap(bids.begin(), first_end, later_by_gain);
      next = &*--first_end;
    } else {
      if (!rest_heaped) std::make_heap(mid, rest_end, later_by_rho);
      rest_heaped = true;
      std::pop_heap(mid, rest_end, later_by_rho);
      next = &*--rest_end;
    }
    ordered.push_back(next->candidate);
    ++ranked;
    if (next->candidate.spec->gpus <= capacity) capacity -= next->candidate.spec->gpus;
  }
  // Running jobs not reached: never chosen, in their order.
  std::vector<const Bid*> first_left;
  std::vector<const Bid*> rest_left;
  for (auto it = bids.begin(); it != first_end; ++it)
    if (it->candidate.placement != nullptr) first_left.push_back(&*it);
  for (auto it = mid; it != rest_end; ++it)
    if (it->candidate.placement != nullptr) rest_left.push_back(&*it);
  std::sort(first_left.begin(), first_left.end(),
            [](const Bid* a, const Bid* b) { return before_by_gain(*a, *b); });
  std::sort(rest_left.begin(), rest_left.end(),
            [](const Bid* a, const Bid* b) { return before_by_rho(*a, *b); });
  for (const Bid* b : first_left) ordered.push_back(b->candidate);
  for (const Bid* b : rest_left) ordered.push_back(b->candidate);
  return priority_pass(input, ordered, placement, /*preemptive=*/true);
}

}  // namespace

ThemisPolicy::ThemisPolicy(ThemisParams params)
    : params_(std::move(params)), placement_(make_placement(params_.placement, params_.seed)) {
  if (!(params_.fairness_knob >= 0 && params_.fairness_knob < 1))
    throw InputError("themis: fairness_knob must be in [0, 1)");
  if (!(params_.lease_s > 0)) throw InputError("themis: lease_s must be > 0");
}

double ThemisPolicy::rho(double elapsed_s, double remaining_s, double alone_s, int gpus, int cluster_gpus,
                         int contention) {
  if (!(alone_s > 0) || gpus <= 0 || cluster_gpus <= 0 || remaining_s < 0) return 1;  // unknown: neutral
  const double fair_share = static_cast<double>(cluster_gpus) / std::max(1, contention);
  const double t_alone = alone_s * gpus / std::min(fair_share, static_cast<double>(gpus));
  return (elapsed_s + remaining_s) / t_alone;
}

double ThemisPolicy::lease_end(double now_s) const {
  if (!params_.aligned_leases) return now_s + params_.lease_s;
  // The grid point nearest to now + lease_s, as k x lease_s: leases ending
  // in the same period end at the same double, so one call auctions them.
  return params_.lease_s * std::floor((now_s + params_.lease_s) / params_.lease_s + 0.5);
}

ThemisPolicy::JobMemo& ThemisPolicy::memo(JobIndex job) {
  if (memos_.size() <= job) memos_.resize(job + 1);
  return memos_[job];
}

double ThemisPolicy::counted_rho(double elapsed_s, double remaining_s, double alone_s, int gpus,
                                 int cluster_gpus, int contention) {
  ++rho_evaluations_;
  return rho(elapsed_s, remaining_s, alone_s, gpus, cluster_gpus, contention);
}

std::vector<Decision> ThemisPolicy::decide(const SchedulerInput& input) {
  if (input.view == nullptr) return {};
  const double now = input.now_s;
  // The fair share is of the GPUs the policy schedules: the VC's quota in
  // VC quota mode (SchedulerInput::gpu_capacity).
  const int cluster_gpus = input.gpu_capacity >= 0
                               ? std::min(input.view->cluster().gpu_count(), input.gpu_capacity)
                               : input.view->cluster().gpu_count();
  const int contention = static_cast<int>(input.running.size() + input.queued.size());
  // Every memo this call reads, made once: the loops below index memos_
  // directly (a size check per job and read was a visible share of a call
  // on a long queue).
  JobIndex last = 0;
  for (const RunningJob& r : input.running) last = std::max(last, r.index);
  for (const QueuedJob& q : input.queued) last = std::max(last, q.index);
  if (contention > 0) memo(last);

  // The GPUs the auction can give (priority_pass: the cluster, or the
  // capacity when capped), after the leased jobs it walks first.
  int capacity = cluster_gpus;
  std::vector<PassCandidate> ordered;  // leased jobs first: they keep their GPUs
  for (const RunningJob& r : input.running)
    if (memos_[r.index].lease_end_s > now + kTimeSlack) {
      ordered.push_back(PassCandidate{r.index, r.spec, kAnyGpuType, &r.placement});
      if (r.spec->gpus <= capacity) capacity -= r.spec->gpus;
    }
  // Every bidder's alone time comes from the first estimate seen (at
  // submission the engine's estimate covers the whole job).
  auto see = [&](JobIndex index, const JobSpec* spec, double remaining_s, double attained_gpu_s) -> JobMemo& {
    JobMemo& m = memos_[index];
    if (m.alone_s < 0 && remaining_s >= 0) m.alone_s = remaining_s + attained_gpu_s / std::max(1, spec->gpus);
    return m;
  };
  bool any_fits = false;
  for (const QueuedJob& q : input.queued) {
    see(q.index, q.spec, q.estimated_remaining_s, q.attained_gpu_s);
    any_fits = any_fits || q.spec->gpus <= capacity;
  }
  for (const RunningJob& r : input.running)
    if (memos_[r.index].lease_end_s <= now + kTimeSlack)
      see(r.index, r.spec, r.estimated_remaining_s, r.attained_gpu_s);

  // A queued job wider than the GPUs left after the leased jobs is never
  // chosen; when none fits, the pass chooses only running jobs, which keep
  // their GPUs, and decides nothing: no bid is needed (on a long queue of
  // wide jobs, most lease ends; docs/PERFORMANCE_HISTORY.md).
  std::vector<Decision> out;
  if (!input.queued.empty() && any_fits) {
    std::vector<Bid> bids;
    bids.reserve(input.queued.size() + input.running.size() - ordered.size());
    auto bid = [&](JobIndex index, const JobSpec* spec, double remaining_s, PassCandidate candidate) {
      const JobMemo& m = memos_[index];
      const double elapsed = std::max(0.0, now - spec->submit_s);
      const double r = counted_rho(elapsed, remaining_s, m.alone_s, spec->gpus, cluster_gpus, contention);
      return Bid{r, elapsed, remaining_s, 0, candidate};
    };
    const auto rho_wait = [&](const Bid& b) {
      return counted_rho(b.elapsed_s + params_.lease_s, b.remaining_s, memos_[b.candidate.index].alone_s,
                         b.candidate.spec->gpus, cluster_gpus, contention);
    };
    for (const RunningJob& r : input.running)
      if (memos_[r.index].lease_end_s <= now + kTimeSlack)
        bids.push_back(bid(r.index, r.spec, r.estimated_remaining_s,
                           PassCandidate{r.index, r.spec, kAnyGpuType, &r.placement}));
    for (const QueuedJob& q : input.queued)
      bids.push_back(bid(q.index, q.spec, q.estimated_remaining_s,
                         PassCandidate{q.index, q.spec, q.allowed_types, nullptr}));
    out =
        auction(input, std::move(ordered), bids, params_.fairness_knob, *placement_, ranked_bids_, rho_wait);
    ++auctions_;
  }

  // Leases: a job started now, or an expired one that kept its GPUs, holds
  // them for another lease.
  std::set<JobIndex> preempted;
  for (const Decision& d : out) {
    if (const auto* s = std::get_if<StartJob>(&d)) memo(s->job).lease_end_s = lease_end(now);
    if (const auto* p = std::get_if<PreemptJob>(&d)) preempted.insert(p->job);
  }
  next_lease_end_s_ = std::numeric_limits<double>::infinity();
  for (const RunningJob& r : input.running) {
    if (preempted.count(r.index) != 0) continue;
    JobMemo& m = memos_[r.index];
    if (m.lease_end_s <= now + kTimeSlack) m.lease_end_s = lease_end(now);
    next_lease_end_s_ = std::min(next_lease_end_s_, m.lease_end_s);
  }
  for (const Decision& d : out)
    if (const auto* s = std::get_if<StartJob>(&d))
      next_lease_end_s_ = std::min(next_lease_end_s_, memo(s->job).lease_end_s);
  // Nobody waits: an expiring lease changes nothing, so no wake-up is needed.
  const auto started = std::count_if(out.begin(), out.end(),
                                     [](const Decision& d) { return std::holds_alternative<StartJob>(d); });
  if (preempted.empty() && static_cast<std::size_t>(started) == input.queued.size())
    next_lease_end_s_ = std::numeric_limits<double>::infinity();
  return out;
}

std::optional<double> ThemisPolicy::next_timer_s(double now_s) const {
  if (std::isfinite(next_lease_end_s_) && next_lease_end_s_ > now_s) return next_lease_end_s_;
  return std::nullopt;
}

namespace {
const PolicyRegistration kThemis(
    "themis", 100,
    ParamTable<ThemisParams>()
        .number("fairness_knob", &ThemisParams::fairness_knob,
                "f: GPUs go first to the 1-f fraction of jobs with the worst rho", {0, 1, false, true})
        .number("lease_s", &ThemisParams::lease_s, "lease length in seconds", NumberRange::positive())
        .choice("aligned_leases", &ThemisParams::aligned_leases, {{"off", false}, {"on", true}},
                "on: leases end on the grid of multiples of lease_s (nearest point), one auction per "
                "period; off: lease_s after each lease began")
        .placement(&ThemisParams::placement, &ThemisParams::seed),
    [](const ThemisParams& p) { return std::make_unique<ThemisPolicy>(p); });
}  // namespace

}  // namespace vnsim
