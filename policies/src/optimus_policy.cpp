#include "vnsim/policies/optimus_policy.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <queue>
#include <tuple>

#include "allocation_plan.hpp"
#include "data_parallel_jobs.hpp"
#include "memory_bound_types.hpp"
#include "vnsim/core/error.hpp"
#include "vnsim/policies/policy_registration.hpp"

namespace vnsim {
namespace {

int nodes_for(int gpus, int gpus_per_node) {
  return (gpus + gpus_per_node - 1) / gpus_per_node;
}

}  // namespace

OptimusPolicy::OptimusPolicy(OptimusParams params) : params_(params) {
  if (!(params_.interval_s > 0)) throw InputError("optimus: interval_s must be > 0");
  if (params_.max_gpus_per_job < 1) throw InputError("optimus: max_gpus_per_job must be >= 1");
  estimator_.rings_on_any_gpu_type(true);  // it prices a job as one GPU type
}

OptimusPolicy::Memo& OptimusPolicy::memo(JobIndex job) {
  if (memos_.size() <= job) memos_.resize(job + 1);
  return memos_[job];
}

std::vector<int> OptimusPolicy::allocate(const std::vector<Candidate>& jobs, int gpus, int gpus_per_node,
                                         const std::string& gpu_type) {
  std::vector<int> k(jobs.size(), 0);
  pushed_.clear();
  // Each job's cached times, looked up once per round (none outside decide()).
  const bool cached =
      times_topology_ != nullptr && gpu_type == times_type_ && gpus_per_node == times_per_node_;
  std::vector<JobTimes*> times(jobs.size(), nullptr);
  auto times_of = [&](std::size_t j) -> JobTimes* {
    if (cached && times[j] == nullptr) times[j] = &times_[jobs[j].spec];
    return times[j];
  };
  auto time_on = [&](std::size_t j, int n) {
    JobTimes* t = times_of(j);
    if (t == nullptr)
      return estimator_.fixed_batch(*jobs[j].spec, gpu_type, nodes_for(n, gpus_per_node), n).iteration_s;
    if (t->iteration_s.size() <= static_cast<std::size_t>(n)) t->iteration_s.resize(n + 1, -1);
    double& s = t->iteration_s[n];
    if (s < 0)
      s = estimator_.fixed_batch(*jobs[j].spec, gpu_type, nodes_for(n, gpus_per_node), n).iteration_s;
    return s;
  };
  auto limit = [&](std::size_t j) {
    JobTimes* t = times_of(j);
    if (t != nullptr && t->limit >= 0) return t->limit;
    const ModelParams& m = estimator_.model(*jobs[j].spec);
    const int l =
        std::min({params_.max_gpus_per_job, jobs[j].spec->global_batch / std::max(1, m.min_local_batch)});
    if (t != nullptr) t->limit = l;
    return l;
  };
  int left = gpus;
  for (std::size_t j = 0; j < jobs.size() && left > 0; ++j)
    if (std::isfinite(time_on(j, 1))) {
      k[j] = 1;
      --left;
    }
  // Max-heap on gain; ties to the earlier job. A job has one entry in the
  // heap at a time, so (gain, job) orders totally; the third element is
  // the entry's place in pushed_.
  using Entry = std::tuple<double, std::size_t, std::size_t>;
  auto worse = [](const Entry& a, const Entry& b) {
    return std::get<0>(a) != std::get<0>(b) ? std::get<0>(a) < std::get<0>(b)
                                            : std::get<1>(a) > std::get<1>(b);
  };
  std::priority_queue<Entry, std::vector<Entry>, decltype(worse)> heap(worse);
  // With no GPU left after the first pass nothing is popped, and the gains
  // decide nothing: none is recorded.
  const bool record = left > 0;
  auto push = [&](std::size_t j) {
    if (k[j] == 0 || k[j] + 1 > limit(j)) return;
    const double drop = time_on(j, k[j]) - time_on(j, k[j] + 1);
    const double gain = jobs[j].remaining_iterations * drop;
    if (!(gain > 0)) return;
    heap.emplace(gain, j, pushed_.size());
    if (record) pushed_.push_back(PushedGain{j, k[j], drop, false});
  };
  for (std::size_t j = 0; j < jobs.size(); ++j) push(j);
  while (left > 0 && !heap.empty()) {
    const std::size_t j = std::get<1>(heap.top());
    pushed_[std::get<2>(heap.top())].popped = true;
    heap.pop();
    ++k[j];
    --left;
    push(j);
  }
  return k;
}

std::vector<Decision> OptimusPolicy::decide(const SchedulerInput& input) {
  // Jobs this policy cannot price are rejected with their reason; the rest
  // are decided on as if those were not there (no recursion: none is left).
  if (auto filtered = reject_non_data_parallel(input, name(), data_parallel_)) {
    std::vector<Decision> out = std::move(filtered->second);
    for (Decision& d : decide(filtered->first)) out.push_back(std::move(d));
    return out;
  }
  const double now = input.now_s;
  if (now < next_round_s_) return {};
  next_round_s_ = now + params_.interval_s;
  // Nothing changed since a quiet round but time: the running jobs'
  // progress is counted, as the round would; if the greedy's gains would
  // still give the GPUs it gave then, it would decide nothing again
  // (docs/PERFORMANCE_HISTORY.md, "Ring engines: fluid rings by default
  // (issue 21)", "Rounds with nothing changed").
  if (skip_quiet_rounds_ && quiet_unchanged(input)) {
    for (const RunningJob& r : input.running) count_progress(memo(r.index), now);
    if (quiet_gains_pick_the_same()) return {};
  }
  ++full_rounds_;
  estimator_.use_topology(input.view->topology());
  const Cluster& cluster = input.view->cluster();
  const std::string gpu_type = cluster.gpu(0).type;
  const int per_node = cluster.max_gpus_per_node();
  if (times_topology_ != &input.view->topology() || times_type_ != gpu_type || times_per_node_ != per_node) {
    times_.clear();
    ++times_generation_;
    times_topology_ = &input.view->topology();
    times_type_ = gpu_type;
    times_per_node_ = per_node;
  }

  // Remaining iterations: the job's total minus what its estimated
  // iteration time says it did since the last round.
  std::vector<Candidate> jobs;
  std::vector<JobIndex> index;
  std::map<JobIndex, const RunningJob*> running;
  for (const RunningJob& r : input.running) running[r.index] = &r;
  auto add = [&](JobIndex job, const JobSpec* spec) {
    Memo& m = memo(job);
    if (m.remaining_iterations < 0) m.remaining_iterations = static_cast<double>(spec->iterations);
    count_progress(m, now);
    jobs.push_back(Candidate{spec, m.remaining_iterations});
    index.push_back(job);
  };
  std::vector<std::pair<double, std::pair<JobIndex, const JobSpec*>>> active;
  for (const RunningJob& r : input.running) active.push_back({r.spec->submit_s, {r.index, r.spec}});
  for (const QueuedJob& q : input.queued) active.push_back({q.spec->submit_s, {q.index, q.spec}});
  std::sort(active.begin(), active.end(), [](const auto& a, const auto& b) {
    return std::tie(a.first, a.second.first) < std::tie(b.first, b.second.first);
  });
  for (const auto& a : active) add(a.second.first, a.second.second);

  const std::vector<int> k = allocate(jobs, cluster.gpu_count(), per_node, gpu_type);
  // GPU counts are compared as the first type; each placement's batch split
  // is chosen for the least-memory type of its GPUs.
  const MemoryBoundTypes types(cluster, estimator_);

  // Jobs keeping their GPU count keep their GPUs; the rest are packed,
  // smallest first, onto the nodes with the most free GPUs.
  std::vector<int> free_on(cluster.node_count());
  for (const NodeInfo& n : cluster.nodes()) free_on[n.id] = n.gpu_count;
  std::vector<TargetAllocation> targets;
  std::vector<std::size_t> to_place;
  for (std::size_t j = 0; j < jobs.size(); ++j) {
    auto it = running.find(index[j]);
    if (it != running.end() && static_cast<int>(it->second->placement.gpus.size()) == k[j]) {
      // The type bounding its nodes (MemoryBoundTypes::of_nodes, folded
      // over its GPUs: the same least-memory type without a per-node list).
      int type = -1;
      for (GpuId g : it->second->placement.gpus) {
        const NodeId node = cluster.gpu(g).node;
        --free_on[node];
        type = type < 0 ? types.of_node(node) : types.smaller(type, types.of_node(node));
      }
      type = std::max(0, type);
      // Its estimate is asked again only when its count or type changed:
      // asking every kept job every round was a visible share of a round.
      Memo& m = memo(index[j]);
      if (m.kept_k != k[j] || m.kept_type != type || m.kept_generation != times_generation_) {
        m.kept_iteration_s =
            estimator_.fixed_batch(*jobs[j].spec, types.name(type), nodes_for(k[j], per_node), k[j])
                .iteration_s;
        m.kept_k = k[j];
        m.kept_type = type;
        m.kept_generation = times_generation_;
      }
      m.iteration_s = m.kept_iteration_s;
      continue;
    }
    to_place.push_back(j);
  }
  std::stable_sort(to_place.begin(), to_place.end(),
                   [&](std::size_t a, std::size_t b) { return k[a] < k[b]; });
  for (std::size_t j : to_place) {
    TargetAllocation t{index[j], {}, jobs[j].spec->global_batch, 1, false, jobs[j].spec->global_batch};
    int need = k[j];
    while (need > 0) {
      const auto best = std::max_element(free_on.begin(), free_on.end());
      if (*best == 0) break;
      const int take = std::min(need, *best);
      t.gpus_per_node.emplace_back(static_cast<NodeId>(best - free_on.begin()), take);
      *best -= take;
      need -= take;
    }
    if (need > 0) t.gpus_per_node.clear();  // cannot happen: the greedy respects the GPU total
    const int gpus = k[j] - need;
    // Accumulation for the least-memory GPU it got: each GPU holds the micro-batch.
    const std::string& type = types.name(types.of_nodes(t.gpus_per_node));
    const BatchChoice c = estimator_.fixed_batch(*jobs[j].spec, type,
                                                 static_cast<int>(t.gpus_per_node.size()), std::max(1, gpus));
    // Not even one sample fits those GPUs: the job waits for the next round.
    if (estimator_.max_local_batch(*jobs[j].spec, type) < 1) t.gpus_per_node.clear();
    t.vn_per_gpu = c.accumulation_steps + 1;
    memo(index[j]).iteration_s = t.gpus_per_node.empty() ? 0 : c.iteration_s;
    targets.push_back(std::move(t));
  }
  std::vector<Decision> out = apply_targets(input, targets, ResizeMode::CheckpointRestart);
  // Quiet only if every job given GPUs runs on that many: a job placed but
  // not started (its GPUs not free in the view, e.g. failed) may start in
  // a later round with the same counts.
  bool all_kept = out.empty();
  for (std::size_t j : to_place) all_kept = all_kept && k[j] == 0;
  remember_if_quiet(input, index, !all_kept);
  return out;
}

// The round's estimate of the iterations done since the last update (none
// while the job holds no GPU).
void OptimusPolicy::count_progress(Memo& m, double now) const {
  if (m.iteration_s > 0) m.remaining_iterations -= (now - m.last_update_s) / m.iteration_s;
  m.remaining_iterations = std::max(1.0, m.remaining_iterations);
  m.last_update_s = now;
}

bool OptimusPolicy::quiet_unchanged(const SchedulerInput& input) const {
  if (!quiet_ || input.queued.size() != quiet_queued_.size() || input.running.size() != quiet_running_.size())
    return false;
  for (std::size_t i = 0; i < input.queued.size(); ++i)
    if (input.queued[i].index != quiet_queued_[i]) return false;
  std::size_t from = 0;
  for (std::size_t i = 0; i < input.running.size(); ++i) {
    const std::vector<GpuId>& gpus = input.running[i].placement.gpus;
    const std::size_t to = quiet_gpus_end_[i];
    if (input.running[i].index != quiet_running_[i] || gpus.size() != to - from ||
        !std::equal(gpus.begin(), gpus.end(), quiet_gpus_.begin() + static_cast<std::ptrdiff_t>(from)))
      return false;
    from = to;
  }
  return true;
}

namespace {

// The greedy's heap order (larger gain first, ties to the earlier job),
// then the job's own steps in order: its entries are never in the heap
// together, so that last key only makes the order total.
bool gain_before(double gain_a, std::size_t pos_a, int k_a, double gain_b, std::size_t pos_b, int k_b) {
  if (gain_a != gain_b) return gain_a > gain_b;
  if (pos_a != pos_b) return pos_a < pos_b;
  return k_a < k_b;
}

}  // namespace

// With the same jobs in the same positions, the first pass gives the same
// GPUs and leaves the same count L to the gains, and each job's steps are
// pushed in the same order (k to k + 1 only after k - 1 to k was given).
// The quiet round gave L steps, P (popped), and left one step per job on
// the heap, U (pushed, not popped). If every step of P now comes before
// every step of U in the heap's order, the greedy gives exactly P again:
// until P is used up, each job's next step on the heap is of P or, once
// its steps of P are given, of U, so the top is always of P; after L pops
// no GPU is left. So the counts, and the round's decisions, are the quiet
// round's. The gains are the products the greedy computes (remaining
// iterations x the drop it pushed), so the comparisons are exact; one pass
// finds P's last step and U's first: O(gains pushed), no sort. Only the
// order across P and U matters: steps swapping places inside P or inside
// U (thousands of jobs sharing a few GPUs left by the first pass) change
// nothing.
bool OptimusPolicy::quiet_gains_pick_the_same() const {
  const QuietGain* last_popped = nullptr;
  double last_popped_gain = 0;
  const QuietGain* first_left = nullptr;
  double first_left_gain = 0;
  for (const QuietGain& q : quiet_gains_) {
    const double gain = memos_[q.job].remaining_iterations * q.drop;
    if (q.popped) {
      if (last_popped == nullptr ||
          gain_before(last_popped_gain, last_popped->pos, last_popped->k, gain, q.pos, q.k)) {
        last_popped = &q;
        last_popped_gain = gain;
      }
    } else if (first_left == nullptr ||
               gain_before(gain, q.pos, q.k, first_left_gain, first_left->pos, first_left->k)) {
      first_left = &q;
      first_left_gain = gain;
    }
  }
  if (last_popped == nullptr || first_left == nullptr) return true;
  return gain_before(last_popped_gain, last_popped->pos, last_popped->k, first_left_gain, first_left->pos,
                     first_left->k);
}

// A round that decided nothing, with every job given GPUs already running
// on that many, is quiet: while its queue and running placements stay and
// its gains keep their order, later rounds give the same counts and so
// decide nothing either (each such job keeps its GPUs, every other job
// gets none), whatever GPUs are free. With every GPU given out one per
// job in arrival order no gain was pushed at all, and the round stays
// quiet until the jobs change.
void OptimusPolicy::remember_if_quiet(const SchedulerInput& input, const std::vector<JobIndex>& index,
                                      bool decided) {
  quiet_ = false;
  quiet_queued_.clear();
  quiet_running_.clear();
  quiet_gpus_.clear();
  quiet_gpus_end_.clear();
  quiet_gains_.clear();
  if (decided) return;
  quiet_ = true;
  // Flat copies that keep their capacity: a quiet round on a large cluster
  // allocates nothing.
  for (const QueuedJob& q : input.queued) quiet_queued_.push_back(q.index);
  for (const RunningJob& r : input.running) {
    quiet_running_.push_back(r.index);
    quiet_gpus_.insert(quiet_gpus_.end(), r.placement.gpus.begin(), r.placement.gpus.end());
    quiet_gpus_end_.push_back(quiet_gpus_.size());
  }
  for (const PushedGain& g : pushed_)
    quiet_gains_.push_back(QuietGain{index[g.pos], g.pos, g.k, g.drop, g.popped});
}

std::optional<double> OptimusPolicy::next_timer_s(double now_s) const {
  if (next_round_s_ > now_s) return next_round_s_;
  return std::nullopt;
}

namespace {
const PolicyRegistration kOptimus("optimus", 70,
                                  ParamTable<OptimusParams>()
                                      .number("interval_s", &OptimusParams::interval_s,
                                              "scheduling round in seconds", NumberRange::positive())
                                      .whole("max_gpus_per_job", &OptimusParams::max_gpus_per_job, 1, 1000000,
                                             "most GPUs one job may get"),
                                  [](const OptimusParams& p) { return std::make_unique<OptimusPolicy>(p); });
}  // namespace

}  // namespace vnsim
