// Virtual-cluster quota mode: one instance of the chosen policy per VC, each
// seeing only its VC's jobs, with starts capped at the VC's quota (and, with
// borrowing, at the GPUs other VCs' queued in-quota jobs do not need).
#include "vnsim/policies/vc_quota_policy.hpp"

#include <algorithm>
#include <limits>
#include <optional>

#include "vnsim/core/error.hpp"

namespace vnsim {

VcQuotaPolicy::VcQuotaPolicy(std::string inner_name, std::function<std::unique_ptr<Policy>()> factory,
                             VcQuotas quotas, bool borrowing)
    : inner_name_(std::move(inner_name)),
      factory_(std::move(factory)),
      borrowing_(borrowing),
      strict_order_(inner_name_ == "fifo"),
      in_order_(inner_name_ == "fifo" || inner_name_ == "fifo-backfill"),
      preemptive_(inner_name_ == "srtf" || inner_name_ == "tiresias" || inner_name_ == "themis" ||
                  inner_name_ == "gandiva") {
  for (const auto& [name, gpus] : quotas.gpus) {
    vc_by_name_.emplace(name, static_cast<int>(vcs_.size()));
    vcs_.push_back(Vc{name, gpus, nullptr});
  }
}

std::string VcQuotaPolicy::name() const {
  return inner_name_ + (borrowing_ ? "+vc-borrow" : "+vc-quota");
}

int VcQuotaPolicy::vc_index(JobIndex job, const JobSpec& spec) {
  if (job >= vc_of_job_.size()) vc_of_job_.resize(job + 1, -1);
  int& v = vc_of_job_[job];
  if (v < 0) {
    auto it = vc_by_name_.find(vc_name_of(spec));
    if (it == vc_by_name_.end())
      throw InputError("job '" + spec.id + "': its VC '" + vc_name_of(spec) + "' has no quota");
    v = it->second;
  }
  return v;
}

std::optional<double> VcQuotaPolicy::next_timer_s(double now_s) const {
  std::optional<double> next;
  for (const Vc& vc : vcs_) {
    if (!vc.policy) continue;
    if (auto t = vc.policy->next_timer_s(now_s)) next = next ? std::min(*next, *t) : *t;
  }
  return next;
}

std::vector<Decision> VcQuotaPolicy::decide(const SchedulerInput& input) {
  std::vector<Decision> out;
  if (input.view == nullptr) return out;
  const std::size_t n = vcs_.size();
  std::vector<int> usage(n, 0);
  std::vector<std::vector<const RunningJob*>> running(n);
  for (const RunningJob& r : input.running) {
    const int v = vc_index(r.index, *r.spec);
    usage[v] += static_cast<int>(r.placement.gpus.size());
    running[v].push_back(&r);
  }

  // Owner demand: each VC's queued jobs in submission order, up to the first
  // that would take the VC past its quota. Only these are protected from
  // borrowers; a job larger than its quota can only ever borrow.
  std::vector<int> demand(n, 0);
  std::vector<char> demand_closed(n, 0);
  std::vector<const QueuedJob*> queued;
  queued.reserve(input.queued.size());
  for (const QueuedJob& q : input.queued) {
    const int v = vc_index(q.index, *q.spec);
    const int g = q.spec->gpus;
    if (!borrowing_ && g > vcs_[v].quota) {
      out.emplace_back(std::in_place_type<RejectJob>,
                       RejectJob{q.index, "needs " + std::to_string(g) + " GPUs, more than its VC '" +
                                              vcs_[v].name + "' quota of " + std::to_string(vcs_[v].quota) +
                                              " GPUs (VC quota mode without borrowing)"});
      continue;
    }
    queued.push_back(&q);
    if (demand_closed[v]) continue;
    if (usage[v] + demand[v] + g <= vcs_[v].quota)
      demand[v] += g;
    else
      demand_closed[v] = 1;
  }

  std::optional<ClusterView> copy;  // the view with this call's decisions applied, made on first need
  const auto view = [&]() -> const ClusterView& { return copy ? *copy : *input.view; };
  const auto mutable_view = [&]() -> ClusterView& {
    if (!copy) copy.emplace(*input.view);
    return *copy;
  };
  const auto total_demand = [&] {
    int sum = 0;
    for (int d : demand) sum += d;
    return sum;
  };
  std::vector<char> taken_back;  // by position in input.running
  // Free GPUs counted as decisions go, so the view is copied only when a
  // later VC's policy must see earlier decisions.
  int free = input.view->free_total();

  // Take borrowed GPUs back: while the owners' demand exceeds the free GPUs,
  // preempt jobs of VCs above their quota, newest start first.
  if (borrowing_ && total_demand() > free) {
    std::vector<const RunningJob*> borrowers;
    for (const RunningJob& r : input.running)
      if (usage[vc_index(r.index, *r.spec)] > vcs_[vc_index(r.index, *r.spec)].quota) borrowers.push_back(&r);
    std::sort(borrowers.begin(), borrowers.end(), [](const RunningJob* a, const RunningJob* b) {
      return a->start_s != b->start_s ? a->start_s > b->start_s : a->index > b->index;
    });
    taken_back.assign(input.running.size(), 0);
    for (const RunningJob* r : borrowers) {
      if (total_demand() <= free) break;
      const int v = vc_index(r->index, *r->spec);
      if (usage[v] <= vcs_[v].quota) continue;
      out.emplace_back(std::in_place_type<PreemptJob>, PreemptJob{r->index});
      usage[v] -= static_cast<int>(r->placement.gpus.size());
      free += static_cast<int>(r->placement.gpus.size());
      mutable_view().release(r->placement.gpus, r->index);
      taken_back[static_cast<std::size_t>(r - input.running.data())] = 1;
    }
  }
  const auto lendable = [&] { return borrowing_ ? std::max(0, free - total_demand()) : 0; };

  // Each VC's policy sees the VC's queued jobs that could start now, and a
  // capacity of its quota (gpu_capacity), so that a preemptive policy
  // (srtf, tiresias, themis, gandiva) makes room for a higher-priority job
  // by preempting the VC's own jobs, as a full cluster would make it: it is
  // shown every job that fits the quota (or the lendable GPUs), not only
  // those that fit what is left of it.
  // A strict FIFO keeps its head of line within the VC: its queue is cut at
  // the first job that cannot start, so no later job overtakes it.
  // fifo and fifo-backfill take jobs in submission order, so they are shown
  // only the jobs that fit the quota together (fifo: up to the first that
  // does not; fifo-backfill: skipping those): otherwise a long queue costs
  // them a placement per job, on other VCs' free GPUs, only to have the
  // starts past the quota dropped.
  std::vector<std::vector<QueuedJob>> admissible(n);
  std::vector<char> blocked(n, 0);
  std::vector<int> prefix_gpus(n, 0);  // fifo, fifo-backfill: GPUs of the jobs kept so far
  for (const QueuedJob* q : queued) {
    const int v = vc_index(q->index, *q->spec);
    if (blocked[v]) continue;
    const int g = q->spec->gpus;
    if (in_order_) {
      // What lies beyond the quota may be borrowed from the lendable GPUs.
      const int prefix = prefix_gpus[v] + g;
      if (usage[v] + prefix <= vcs_[v].quota + lendable()) {
        admissible[v].push_back(*q);
        prefix_gpus[v] = prefix;
      } else if (strict_order_) {
        blocked[v] = 1;
      }
    } else if (usage[v] + g <= vcs_[v].quota || g <= lendable() || (preemptive_ && g <= vcs_[v].quota)) {
      admissible[v].push_back(*q);
    }
  }
  std::vector<std::size_t> calls;
  for (std::size_t v = 0; v < n; ++v)
    if (!admissible[v].empty()) calls.push_back(v);

  for (std::size_t c = 0; c < calls.size(); ++c) {
    const std::size_t v = calls[c];
    Vc& vc = vcs_[v];
    if (!vc.policy) vc.policy = factory_();
    SchedulerInput in;
    in.now_s = input.now_s;
    in.view = &view();
    in.queued = std::move(admissible[v]);
    // With borrowing, a start beyond the quota must fit the lendable GPUs.
    in.gpu_capacity = borrowing_ ? std::max(vc.quota, usage[v] + lendable()) : vc.quota;
    for (const RunningJob* r : running[v])
      if (taken_back.empty() || !taken_back[static_cast<std::size_t>(r - input.running.data())])
        in.running.push_back(*r);
    const bool more_calls = c + 1 < calls.size();
    bool dropped = false;
    for (Decision& d : vc.policy->decide(in)) {
      if (auto* s = std::get_if<StartJob>(&d)) {
        const int g = static_cast<int>(s->placement.gpus.size());
        const bool within = usage[v] + g <= vc.quota;
        if (dropped && strict_order_) continue;  // a strict FIFO starts nothing after a job that waits
        if (!within && g > lendable()) {
          dropped = true;  // over the quota: waits for the next decision
          continue;
        }
        if (within) demand[v] = std::max(0, demand[v] - g);
        usage[v] += g;
        if (s->gpu_milli <= 0) {
          free -= g;
        } else {
          for (GpuId gpu : s->placement.gpus) free -= view().is_free(gpu) ? 1 : 0;
        }
        if (more_calls)
          mutable_view().allocate(s->placement.gpus, s->job,
                                  s->gpu_milli > 0 ? static_cast<int>(s->gpu_milli) : kGpuMilli);
      } else if (auto* p = std::get_if<PreemptJob>(&d)) {
        for (const RunningJob& r : in.running)
          if (r.index == p->job) {
            usage[v] -= static_cast<int>(r.placement.gpus.size());
            free += static_cast<int>(r.placement.gpus.size());
            if (more_calls) mutable_view().release(r.placement.gpus, r.index);
          }
      } else if (std::holds_alternative<ResizeJob>(d)) {
        throw InputError("policy '" + inner_name_ + "' resized a job, which VC quota mode cannot honour");
      }
      out.push_back(std::move(d));
    }
  }
  return out;
}

}  // namespace vnsim
