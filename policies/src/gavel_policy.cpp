#include "vnsim/policies/gavel_policy.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>
#include <memory>
#include <numeric>
#include <tuple>

#include "data_parallel_jobs.hpp"
#include "gavel_picks.hpp"
#include "type_throughput.hpp"
#include "vnsim/core/error.hpp"
#include "vnsim/policies/policy_registration.hpp"

namespace vnsim {
namespace {

// Rounds fall on times computed by repeated addition; a wake-up a few ulps
// early must still count as the round.
constexpr double kTimeSlack = 1e-9;
constexpr JobIndex kNoPartner = std::numeric_limits<JobIndex>::max();  // as partner_of's none

}  // namespace

GavelObjective gavel_objective_from_string(const std::string& text) {
  if (text == "max_min_fairness") return GavelObjective::MaxMinFairness;
  if (text == "finish_time_fairness") return GavelObjective::FinishTimeFairness;
  if (text == "makespan") return GavelObjective::Makespan;
  throw InputError("gavel: objective '" + text +
                   "' is not one of max_min_fairness, finish_time_fairness, makespan");
}

GavelPolicy::GavelPolicy(GavelParams params)
    : params_(std::move(params)),
      placement_(make_placement(params_.placement, params_.seed)),
      throughput_(std::make_unique<TypeThroughput>(GpuCatalog::builtin(), ModelCatalog::builtin())) {
  if (!(params_.round_s > 0)) throw InputError("gavel: round_s must be > 0");
  if (!(params_.reset_s >= 0)) throw InputError("gavel: reset_s must be >= 0");
  if (params_.partners_per_class < 1) throw InputError("gavel: partners_per_class must be >= 1");
}

GavelPolicy::~GavelPolicy() = default;

GavelPolicy::JobMemo& GavelPolicy::memo(JobIndex job) {
  if (memos_.size() <= job) memos_.resize(job + 1);
  return memos_[job];
}

const std::vector<double>& GavelPolicy::row_of(const Topology& topology, const JobSpec& spec, JobMemo& m) {
  if (m.row.empty() || m.row_allowed != m.allowed) {
    m.row = throughput_->row(topology, spec, m.allowed);
    m.row_allowed = m.allowed;
  }
  return m.row;
}

const std::vector<double>& GavelPolicy::allocation_of(JobIndex job) const {
  static const std::vector<double> kNone;
  return job < memos_.size() ? memos_[job].x : kNone;
}

void GavelPolicy::solve(const SchedulerInput& input, double now, const std::vector<Active>& active) {
  ++solves_;
  // The jobs' steps are read and their isolated rates set: kept rounds
  // before now are replayed first, at the old rates, as they were settled.
  for (const Active& a : active) catch_up(memos_[a.index], a.index);
  const Cluster& cluster = input.view->cluster();
  GavelProblem p;
  for (const std::string& type : cluster.gpu_types()) p.type_gpus.push_back(cluster.gpu_count_of_type(type));
  for (const Active& a : active) {
    const JobMemo& m = memos_[a.index];
    p.throughput.emplace_back(a.throughput.begin(), a.throughput.end());
    p.scale.push_back(a.spec->gpus);
    p.remaining_steps.push_back(std::max(0.0, static_cast<double>(a.spec->iterations) - m.steps_done));
    p.since_start_s.push_back(std::max(0.0, now - a.spec->submit_s));
    p.isolated_cum_s.push_back(m.isolated_cum_s);
  }
  if (params_.space_sharing) add_sharing(input, active, p);
  GavelAllocation alloc;
  switch (params_.objective) {
    case GavelObjective::MaxMinFairness:
      alloc = gavel_max_min_fairness(p);
      break;
    case GavelObjective::FinishTimeFairness:
      alloc = gavel_finish_time_fairness(p);
      break;
    case GavelObjective::Makespan:
      alloc = gavel_min_makespan(p);
      break;
  }
  const std::vector<double> isolated = gavel_isolated_throughput(p);
  for (std::size_t i = 0; i < active.size(); ++i) {
    JobMemo& m = memos_[active[i].index];
    m.x = std::move(alloc.x[i]);
    m.isolated_rate = isolated[i];
  }
  pair_x_.clear();
  for (const GavelPairShare& s : alloc.pairs) {
    std::vector<double>& x = pair_x_[std::minmax(active[s.a].index, active[s.b].index)];
    x.resize(p.type_gpus.size(), 0);
    x[static_cast<std::size_t>(s.type)] = s.x;
  }
}

// Per GPU type, the time the active jobs have received on it: the
// denominator of every job's share in `priorities`.
std::vector<double> GavelPolicy::total_time_per_type(const std::vector<Active>& active, int types) const {
  std::vector<double> type_time(types, 0);
  for (const Active& a : active)
    for (int j = 0; j < types; ++j) type_time[j] += memos_[a.index].time_s[j];
  return type_time;
}

void GavelPolicy::priorities(const Active& a, const std::vector<double>& type_time,
                             std::vector<double>& out) const {
  const JobMemo& m = memos_[a.index];
  out.assign(type_time.size(), 0);
  for (std::size_t j = 0; j < out.size() && j < m.x.size(); ++j) {
    if (!(m.x[j] > 0) || !(a.throughput[j] > 0) || !(type_time[j] > 0)) continue;
    // The pseudo-count keeps every time counter positive, so the fraction is too.
    out[j] = m.x[j] / (m.time_s[j] / type_time[j]);
  }
}

std::optional<Placement> GavelPolicy::place(FreeGpus& free, const Active& a, int type) {
  const GpuTypeMask mask = memos_[a.index].allowed & (GpuTypeMask{1} << type);
  auto gpus = placement_->place(free, a.spec->gpus, mask);
  if (!gpus) return std::nullopt;
  free.take(*gpus);
  return spread_virtual_nodes(std::move(*gpus), a.spec->effective_virtual_nodes());
}

using gavel_detail::kAlone;
using gavel_detail::Pick;
using gavel_detail::take_in_order;

namespace {

constexpr long long kHalfGpu = kGpuMilli / 2;

}  // namespace

std::vector<Decision> GavelPolicy::round(const SchedulerInput& input, const std::vector<Active>& active) {
  const Cluster& cluster = input.view->cluster();
  const int types = static_cast<int>(cluster.gpu_types().size());
  std::vector<double> type_time = total_time_per_type(active, types);
  if (params_.space_sharing) {
    const std::vector<double> shared = pair_time_per_type(active, types);
    for (int j = 0; j < types; ++j) type_time[j] += shared[j];
  }
  std::vector<JobIndex> index_of;
  std::vector<Pick> picks;
  std::vector<double> prio;
  for (std::size_t pos = 0; pos < active.size(); ++pos) {
    index_of.push_back(active[pos].index);
    priorities(active[pos], type_time, prio);
    for (int j = 0; j < types; ++j)
      if (prio[j] > 0)
        picks.push_back(Pick{prio[j], memos_[active[pos].index].x[j], pos, j, active[pos].throughput[j],
                             active[pos].spec->gpus});
  }
  for (const PairPick& p : pair_picks(active, type_time))
    picks.push_back(Pick{p.priority, p.x, p.pos, p.type, p.rate, active[p.pos].spec->gpus, p.partner_pos});

  std::vector<int> capacity(types);
  for (int j = 0; j < types; ++j) capacity[j] = cluster.gpu_count_of_type(cluster.gpu_types()[j]);
  std::vector<int> chosen(active.size(), -1);
  std::vector<std::size_t> partner(active.size(), kAlone);
  std::vector<std::size_t> order;
  auto choose = [&](std::size_t pos, int j) {
    if (chosen[pos] >= 0 || capacity[j] < active[pos].spec->gpus) return;
    chosen[pos] = j;
    capacity[j] -= active[pos].spec->gpus;
    order.push_back(pos);
  };
  // A pair holds one set of GPUs (both jobs have the same scale).
  auto choose_pair = [&](std::size_t pos, std::size_t other, int j) {
    if (chosen[pos] >= 0 || chosen[other] >= 0 || capacity[j] < active[pos].spec->gpus) return;
    chosen[pos] = chosen[other] = j;
    partner[pos] = other;
    partner[other] = pos;
    capacity[j] -= active[pos].spec->gpus;
    order.push_back(pos);
  };
  // Once no type has room for the narrowest job, no later pick is chosen.
  int narrowest = std::numeric_limits<int>::max();
  for (const Active& a : active) narrowest = std::min(narrowest, a.spec->gpus);
  auto room_left = [&] {
    return !capacity.empty() && *std::max_element(capacity.begin(), capacity.end()) >= narrowest;
  };
  ranked_ = 0;
  if (room_left())
    ranked_ = take_in_order(picks, index_of, capacity, [&](const Pick& p) {
      if (p.partner == kAlone)
        choose(p.pos, p.type);
      else
        choose_pair(p.pos, p.partner, p.type);
      return room_left();
    });
  // Work conservation: GPUs the allocation leaves unused go to the jobs left
  // out, in submission order, each on its fastest type that still has room.
  std::vector<std::size_t> by_index(room_left() ? active.size() : 0);
  std::iota(by_index.begin(), by_index.end(), std::size_t{0});
  std::sort(by_index.begin(), by_index.end(),
            [&](std::size_t a, std::size_t b) { return active[a].index < active[b].index; });
  for (std::size_t pos : by_index) {
    // choose() takes nothing for a job already chosen or wider than every
    // type's room: skip those before ranking its types (most of a long queue).
    if (chosen[pos] >= 0 || capacity.empty() ||
        *std::max_element(capacity.begin(), capacity.end()) < active[pos].spec->gpus)
      continue;
    std::vector<int> fastest(types);
    std::iota(fastest.begin(), fastest.end(), 0);
    std::stable_sort(fastest.begin(), fastest.end(),
                     [&](int a, int b) { return active[pos].throughput[a] > active[pos].throughput[b]; });
    for (int j : fastest)
      if (active[pos].throughput[j] > 0) choose(pos, j);
  }

  // A running job keeps its GPUs only when chosen for the same type and the
  // same partner (or none) it has now; a pair is therefore kept or left by
  // both its jobs.
  std::vector<Decision> out;
  std::vector<char> keeps(active.size(), 0);
  FreeGpus free(*input.view, input.running);
  for (std::size_t pos = 0; pos < active.size(); ++pos) {
    const RunningJob* r = active[pos].running;
    if (r == nullptr) continue;
    const JobIndex now_with = partner_of(*input.view, *r);
    const JobIndex chosen_with = partner[pos] == kAlone ? kNoPartner : active[partner[pos]].index;
    if (chosen[pos] == placement_type(cluster, r->placement) && now_with == chosen_with) {
      keeps[pos] = 1;
      continue;
    }
    out.emplace_back(std::in_place_type<PreemptJob>, PreemptJob{r->index});
    // Its time stops counting now (settled above); it is active again
    // when it is next seen queued.
    leave(r->index, input.now_s);
    // Both jobs of a pair leave its GPUs: they are freed once.
    if (now_with == kNoPartner || r->index < now_with) free.release(r->placement.gpus);
  }
  for (const auto& moved : planned_) memos_[moved.first].planned_type = -1;
  planned_.clear();
  for (std::size_t pos : order) {
    const RunningJob* r = active[pos].running;
    if (partner[pos] == kAlone) {
      if (r != nullptr) {
        // A job moving to another type (or leaving a pair) restarts in the
        // engine's next call, after its preemption has been applied (fill()
        // starts it first).
        if (keeps[pos] == 0) {
          planned_.emplace_back(r->index, chosen[pos]);
          memos_[r->index].planned_type = chosen[pos];
        }
        continue;
      }
      if (auto p = place(free, active[pos], chosen[pos]))
        out.emplace_back(std::in_place_type<StartJob>, StartJob{active[pos].index, std::move(*p)});
      continue;
    }
    const std::size_t other = partner[pos];
    if (keeps[pos] != 0 && keeps[other] != 0) continue;
    // A new pair starts at once on half of each of the same GPUs; its jobs
    // that ran were preempted above, so they are queued again by then.
    if (auto gpus = place_pair(free, active[pos], active[other], chosen[pos])) {
      for (std::size_t q : {pos, other})
        out.emplace_back(
            std::in_place_type<StartJob>,
            StartJob{active[q].index, spread_virtual_nodes(*gpus, active[q].spec->effective_virtual_nodes()),
                     kHalfGpu});
    }
  }
  return out;
}

std::vector<Decision> GavelPolicy::decide(const SchedulerInput& input) {
  // Jobs this policy cannot price are rejected with their reason; the rest
  // are decided on as if those were not there (no recursion: none is left).
  // With the driver's changes only the changed queued jobs can be new.
  bool check_queue = input.changes == nullptr;
  if (!check_queue) {
    for (JobIndex j : input.changes->jobs()) {
      const QueuedJob* q = input.changes->queued(j);
      if (q == nullptr || (j < data_parallel_.size() && data_parallel_[j] != 0)) continue;
      if (not_data_parallel_reason(name(), *q->spec)) {
        check_queue = true;
        break;
      }
      if (data_parallel_.size() <= j) data_parallel_.resize(j + 1, 0);
      data_parallel_[j] = 1;
    }
  }
  if (check_queue) {
    if (auto filtered = reject_non_data_parallel(input, name(), data_parallel_)) {
      std::vector<Decision> out = std::move(filtered->second);
      for (Decision& d : decide(filtered->first)) out.push_back(std::move(d));
      return out;
    }
  }
  if (input.view == nullptr) return {};
  const Cluster& cluster = input.view->cluster();
  const Topology& topology = input.view->topology();
  ++calls_;
  if (types_ != cluster.gpu_types().size()) {
    types_ = cluster.gpu_types().size();
    stored_time_.assign(types_, 0);
    accruing_.assign(types_, 0);
    accruing_from_.assign(types_, 0);
  }
  std::vector<Decision> out;
  read_input(input, out);
  want_timer_ = !tracked_.empty();
  if (tracked_.empty()) return out;

  if (input.now_s + kTimeSlack < next_round_s_) {
    std::vector<Decision> started = fill(input);
    out.insert(out.end(), std::make_move_iterator(started.begin()), std::make_move_iterator(started.end()));
    return out;
  }
  // A kept round leaves the counters to each job's next use (gavel_kept.cpp).
  if (round_keeps_everyone()) {
    keep_everyone(input);
    return out;
  }
  // A ranked round reads every active job: their counters are settled to now.
  settle_all(input);
  std::vector<Active> active;
  active.reserve(input.running.size() + input.queued.size());
  for (const RunningJob& r : input.running) {
    JobMemo& m = memos_[r.index];
    if (m.state == JobState::Running)
      active.push_back(Active{r.index, r.spec, &r, row_of(topology, *r.spec, m)});
  }
  for (const QueuedJob& q : input.queued) {
    JobMemo& m = memos_[q.index];
    if (m.state == JobState::Queued)
      active.push_back(Active{q.index, q.spec, nullptr, row_of(topology, *q.spec, m)});
  }
  // The active jobs are not the last solve's (unsolved_, gavel_quiet.cpp).
  if (unsolved_ != 0) {
    solve(input, input.now_s, active);
    note_solved();
    maybe_reset(input.now_s);
  } else if (pending_) {
    solve_pending(input);
  }
  recount_totals();
  next_round_s_ = input.now_s + params_.round_s;
  std::vector<Decision> decided = round(input, active);
  out.insert(out.end(), std::make_move_iterator(decided.begin()), std::make_move_iterator(decided.end()));
  return out;
}

std::optional<double> GavelPolicy::next_timer_s(double now_s) const {
  if (want_timer_ && next_round_s_ > now_s) return next_round_s_;
  return std::nullopt;
}

namespace {
const PolicyRegistration kGavel(
    "gavel", 90,
    ParamTable<GavelParams>()
        .choice("objective", &GavelParams::objective,
                {{"max_min_fairness", GavelObjective::MaxMinFairness},
                 {"finish_time_fairness", GavelObjective::FinishTimeFairness},
                 {"makespan", GavelObjective::Makespan}},
                "the LP's objective")
        .number("round_s", &GavelParams::round_s, "round length in seconds", NumberRange::positive())
        .number("reset_s", &GavelParams::reset_s, "least time between resets of the per-type time counters",
                NumberRange::non_negative())
        .placement(&GavelParams::placement, &GavelParams::seed)
        .choice("space_sharing", &GavelParams::space_sharing, {{"off", false}, {"on", true}},
                "on: pairs of same-size jobs may share GPUs, half each, at the interference table's rates")
        .whole("partners_per_class", &GavelParams::partners_per_class, 1, 1000,
               "space sharing: best partner classes kept per class of identical jobs (caps the LP's pair "
               "columns)")
        .flag("skip_unchanged", &GavelParams::skip_unchanged,
              "1: a round that provably keeps every job where it is (one GPU type, no job queued) only "
              "moves the time counters, without ranking the jobs; 0: every round ranks every job"),
    [](const GavelParams& p) { return std::make_unique<GavelPolicy>(p); });
}  // namespace

}  // namespace vnsim
