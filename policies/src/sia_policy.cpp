#include "vnsim/policies/sia_policy.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "allocation_plan.hpp"
#include "data_parallel_jobs.hpp"
#include "estimated_progress.hpp"
#include "vnsim/core/error.hpp"
#include "vnsim/policies/policy_registration.hpp"

namespace vnsim {
namespace {

// Nodes of one GPU type (a node's type is its first GPU's).
struct TypePool {
  std::string type;
  std::vector<NodeId> nodes;
  int gpus_per_node = 0;  // the largest node of the type
  int gpus = 0;
};

std::vector<TypePool> pools_of(const Cluster& cluster) {
  std::vector<TypePool> pools;
  for (const NodeInfo& n : cluster.nodes()) {
    if (n.gpu_count == 0) continue;
    const std::string& type = cluster.gpu(n.first_gpu).type;
    auto it = std::find_if(pools.begin(), pools.end(), [&](const TypePool& p) { return p.type == type; });
    if (it == pools.end()) it = pools.insert(pools.end(), TypePool{type, {}, 0, 0});
    it->nodes.push_back(n.id);
    it->gpus_per_node = std::max(it->gpus_per_node, n.gpu_count);
    it->gpus += n.gpu_count;
  }
  return pools;
}

// Sia's configuration set: 1, 2, 4, ... GPUs up to a node, then whole nodes.
std::vector<SiaConfig> configs_of(const std::vector<TypePool>& pools, int max_nodes) {
  std::vector<SiaConfig> out;
  for (std::size_t t = 0; t < pools.size(); ++t) {
    const int r = pools[t].gpus_per_node;
    for (int g = 1; g <= r; g *= 2) out.push_back(SiaConfig{static_cast<int>(t), g, 1});
    if (r & (r - 1)) out.push_back(SiaConfig{static_cast<int>(t), r, 1});  // a node that is not a power of 2
    const int most = std::min<int>(max_nodes, static_cast<int>(pools[t].nodes.size()));
    for (int n = 2; n <= most; ++n) out.push_back(SiaConfig{static_cast<int>(t), n * r, n});
  }
  return out;
}

// Where the jobs whose configuration changes go (job position -> (node,
// GPUs)): jobs keeping their configuration keep their GPUs (`held`: the
// running jobs' GPUs); whole-node configurations take free nodes, then
// single-node ones go best fit, largest first. A job that does not fit is
// left out: it waits (or stops) for a round.
std::map<std::size_t, std::vector<std::pair<NodeId, int>>> place_movers(
    const Cluster& cluster, const std::vector<TypePool>& pools, const std::vector<SiaConfig>& configs,
    const std::vector<int>& chosen, const std::vector<int>& current_config,
    const std::vector<const std::vector<GpuId>*>& held) {
  std::vector<std::size_t> movers;
  for (std::size_t i = 0; i < chosen.size(); ++i)
    if (chosen[i] >= 0 && chosen[i] != current_config[i]) movers.push_back(i);
  std::vector<int> free_on;
  if (!movers.empty()) {
    free_on.assign(cluster.node_count(), 0);
    for (const NodeInfo& n : cluster.nodes()) free_on[n.id] = n.gpu_count;
    for (std::size_t i = 0; i < chosen.size(); ++i)
      if (chosen[i] >= 0 && chosen[i] == current_config[i])
        for (GpuId g : *held[i]) --free_on[cluster.gpu(g).node];
  }
  std::stable_sort(movers.begin(), movers.end(), [&](std::size_t a, std::size_t b) {
    const SiaConfig& ca = configs[chosen[a]];
    const SiaConfig& cb = configs[chosen[b]];
    return std::tie(cb.nodes, cb.gpus) < std::tie(ca.nodes, ca.gpus);
  });
  std::map<std::size_t, std::vector<std::pair<NodeId, int>>> placed;
  for (std::size_t i : movers) {
    const SiaConfig& cfg = configs[chosen[i]];
    const TypePool& pool = pools[cfg.type];
    std::vector<std::pair<NodeId, int>> where;
    if (cfg.nodes > 1) {
      for (NodeId n : pool.nodes)
        if (static_cast<int>(where.size()) < cfg.nodes && free_on[n] == pool.gpus_per_node)
          where.emplace_back(n, pool.gpus_per_node);
      if (static_cast<int>(where.size()) < cfg.nodes) continue;
    } else {
      NodeId best = 0;
      int best_free = -1;
      for (NodeId n : pool.nodes)
        if (free_on[n] >= cfg.gpus && (best_free < 0 || free_on[n] < best_free)) {
          best = n;
          best_free = free_on[n];
        }
      if (best_free < 0) continue;
      where.emplace_back(best, cfg.gpus);
    }
    for (const auto& [n, k] : where) free_on[n] -= k;
    placed[i] = std::move(where);
  }

  return placed;
}

}  // namespace

SiaPolicy::SiaPolicy(SiaParams params) : params_(params) {
  if (!(params_.interval_s > 0)) throw InputError("sia: interval_s must be > 0");
  if (!std::isfinite(params_.p) || params_.p == 0) throw InputError("sia: p must be non-zero");
  if (params_.max_nodes_per_job < 1 || params_.max_gpus_per_job < 1)
    throw InputError("sia: max_nodes_per_job and max_gpus_per_job must be >= 1");
  if (!(params_.relative_gap >= 0 && params_.relative_gap < 1))
    throw InputError("sia: relative_gap must be in [0, 1)");
  if (params_.max_bb_nodes < 0) throw InputError("sia: max_bb_nodes must be >= 0");
}

double SiaPolicy::restart_cost_s(const std::string& model) {
  // Restart costs of the Sia simulator (siasosp23/artifacts sia-simulator/sia.py).
  if (model == "deepspeech2") return 25;
  if (model == "imagenet") return 250;
  if (model == "bert") return 120;
  if (model == "yolov3") return 45;
  return 30;  // cifar10 and any other model
}

SiaPolicy::Memo& SiaPolicy::memo(JobIndex job) {
  if (memos_.size() <= job) memos_.resize(job + 1);
  return memos_[job];
}

void SiaPolicy::use_noise_profiles(const NoiseScaleCatalog& noise) {
  estimator_.use_noise_profiles(noise);
  forget_rows();
}

void SiaPolicy::forget_rows() {
  rows_.clear();
  ++rows_generation_;  // every Memo::row is stale
  standing_.clear();   // its row pointers may be reused
  standing_fixed_ = false;
}

// A raw row depends on the model, the spec batch and the progress, and on
// the progress only through its epoch where the noise profile has per-batch
// statistics (GoodputEstimator::best): one row per epoch, shared by every
// job of that model and batch, looked up again only when the epoch changes.
const std::vector<double>& SiaPolicy::raw_row(const JobSpec& spec, Memo& m,
                                              const std::vector<SiaConfig>& configs,
                                              const std::vector<std::string>& types) {
  if (m.generation != rows_generation_) {
    m.generation = rows_generation_;
    m.noise = estimator_.noise(spec);
    m.row = nullptr;
    m.placed_on.clear();
    m.choice_row = nullptr;
  }
  const NoiseScaleProfile* noise = m.noise;
  const double progress = noise != nullptr && !noise->per_batch() ? m.progress : 0;
  const int epoch = m.row != nullptr && m.epoch_progress == m.progress ? m.row_epoch
                    : noise != nullptr                                 ? noise->epoch_at(m.progress)
                                                                       : -1;
  if (m.row != nullptr && m.row_progress == progress && m.row_epoch == epoch) {
    m.epoch_progress = m.progress;
    return *m.row;
  }
  auto [it, added] = rows_.try_emplace({spec.model, spec.global_batch, epoch, progress});
  if (added) {
    const ModelParams& model = estimator_.model(spec);
    const int max_batch =
        noise != nullptr ? std::max(noise->max_batch, model.max_global_batch) : spec.global_batch;
    const int max_gpus = std::min(params_.max_gpus_per_job, max_batch / std::max(1, model.min_local_batch));
    it->second.assign(configs.size(), 0.0);
    for (std::size_t c = 0; c < configs.size(); ++c) {
      const SiaConfig& cfg = configs[c];
      if (cfg.gpus > std::max(1, max_gpus)) continue;
      it->second[c] = estimator_.best(spec, types[cfg.type], m.progress, cfg.nodes, cfg.gpus).goodput;
    }
  }
  m.row = &it->second;
  m.row_epoch = epoch;
  m.row_progress = progress;
  m.epoch_progress = m.progress;
  return it->second;
}

void SiaPolicy::skip_unchanged_rounds(const SchedulerInput& input, const std::vector<JobIndex>& running_jobs,
                                      double now) {
  // Later rounds with this input decide nothing up to the proof's end or
  // the first round at which a running job's estimated progress may have
  // entered another epoch (which changes its row), whichever is first.
  // The idle-deadlock guard counts timer wakes only while nothing runs.
  double until = proven_until_s_;
  for (JobIndex job : running_jobs) {
    const Memo& m = memo(job);
    if (!(m.rate > 0) || m.noise == nullptr) continue;
    if (!m.noise->per_batch()) until = now;  // its row follows the exact progress
    const auto e = static_cast<std::size_t>(std::max(0, m.row_epoch));
    if (m.noise->per_batch() && e + 1 < m.noise->epoch_end.size()) {
      const double from = std::max(m.last_update_s, m.no_progress_until_s);
      const double cross = from + (m.noise->epoch_end[e] - m.progress) / m.rate;
      until = std::min(until, cross - 1e-6 * std::max(1.0, std::abs(cross)));  // early rather than late
    }
  }
  double to = next_round_s_;
  while (to <= until) to += params_.interval_s;
  if (to > next_round_s_) {
    skip_to_s_ = to;
    record_input(input);
  }
}

void SiaPolicy::target_job(const Cluster& cluster, const JobTarget& j, double now,
                           std::vector<TargetAllocation>& targets) {
  Memo& m = memo(j.index);
  if (j.config < 0) {
    if (j.running != nullptr) {
      targets.push_back(TargetAllocation{j.index, {}, 0, 1, false, 0});
      ++m.restarts;
    }
    m.rate = 0;
    return;
  }
  const SiaConfig& cfg = j.configs[static_cast<std::size_t>(j.config)];
  const std::string& type = j.type;
  // best() depends on what the row was looked up by (raw_row): the last
  // answer stands while the row and the configuration do.
  if (m.choice_row != m.row || m.choice_config != j.config) {
    m.choice = estimator_.best(*j.spec, type, m.progress, cfg.nodes, cfg.gpus);
    m.choice_row = m.row;
    m.choice_config = j.config;
  }
  const BatchChoice c = m.choice;
  last_round_[j.index] = Chosen{type, cfg.gpus, c};
  const NoiseScaleProfile* noise = m.noise;
  const double m0 = noise != nullptr ? noise->initial_batch : std::max(1, j.spec->global_batch);
  const int batch_now = m.batch > 0 ? m.batch : j.spec->global_batch;
  if (j.keeps) {
    const double eff =
        noise != nullptr ? statistical_efficiency(noise->phi_at(m.progress, batch_now), m0, batch_now) : 1;
    const double now_goodput = m.iteration_s > 0 ? batch_now / m.iteration_s * eff : 0;
    if (c.global_batch == batch_now || c.goodput < now_goodput * (1 + params_.batch_change_gain)) {
      if (m.iteration_s > 0) m.rate = now_goodput / m0;
      return;
    }
    targets.push_back(TargetAllocation{j.index, gpus_per_node(cluster, j.running->placement.gpus),
                                       c.global_batch, c.accumulation_steps + 1, true, batch_now});
  } else {
    if (j.running != nullptr) {
      ++m.restarts;
      m.no_progress_until_s = now + restart_cost_s(j.spec->model);
    }
    targets.push_back(
        TargetAllocation{j.index, *j.where, c.global_batch, c.accumulation_steps + 1, false, batch_now});
  }
  m.batch = c.global_batch;
  m.iteration_s = c.iteration_s;
  m.rate = c.goodput / m0;
}

std::vector<Decision> SiaPolicy::decide(const SchedulerInput& input) {
  // Jobs this policy cannot price are rejected with their reason; the rest
  // are decided on as if those were not there (no recursion: none is left).
  // A job's spec never changes, so each queued job is checked once.
  bool unchecked = false;
  for (const QueuedJob& q : input.queued) unchecked = unchecked || !memo(q.index).priced;
  if (unchecked) {
    if (auto filtered = reject_non_data_parallel(input, name())) {
      std::vector<Decision> out = std::move(filtered->second);
      for (Decision& d : decide(filtered->first)) out.push_back(std::move(d));
      return out;
    }
    for (const QueuedJob& q : input.queued) memo(q.index).priced = true;
  }
  const double now = input.now_s;
  if (skip_to_s_ > next_round_s_) {
    // The rounds before now that were skipped would have decided nothing:
    // the input had not changed (a change calls decide) and the standing
    // answer was proven for them. The grid of rounds stays the same.
    while (next_round_s_ < now && next_round_s_ < skip_to_s_) next_round_s_ += params_.interval_s;
    if (!same_input(input)) skip_to_s_ = -std::numeric_limits<double>::infinity();
  }
  if (now < next_round_s_) return {};
  next_round_s_ = now + params_.interval_s;
  skip_to_s_ = -std::numeric_limits<double>::infinity();
  estimator_.use_topology(input.view->topology());
  // Rows keyed by an exact progress (a noise profile without per-batch
  // statistics) would pile up round after round: start afresh past a bound.
  constexpr std::size_t kMostRows = 100000;
  if (rows_topology_ != &input.view->topology() || rows_.size() > kMostRows) {
    forget_rows();
    rows_topology_ = &input.view->topology();
  }
  const Cluster& cluster = input.view->cluster();
  advance_estimated_progress(memos_, input, now);

  const std::vector<TypePool> pools = pools_of(cluster);
  std::vector<std::string> types;
  for (const TypePool& pool : pools) types.push_back(pool.type);
  SiaIlpProblem problem;
  problem.p = params_.p;
  problem.no_allocation_penalty = params_.no_allocation_penalty;
  problem.relative_gap = params_.relative_gap;
  problem.max_bb_nodes = params_.max_bb_nodes;
  problem.knapsack = params_.knapsack;
  problem.certify_start = params_.certify_start;
  problem.max_search_nodes = params_.search_nodes;
  problem.exact_two_types = params_.exact_two_types;
  problem.keep_within_gap = params_.keep_within_gap;
  problem.gap_search = params_.gap_search;
  problem.own_bb = params_.own_bb;
  problem.configs = configs_of(pools, params_.max_nodes_per_job);
  for (const TypePool& pool : pools) problem.capacity.push_back(pool.gpus);

  struct Active {
    double submit;
    JobIndex index;
    const JobSpec* spec;
    const RunningJob* running;
  };
  // In (submit, index) order, a total order: the running and the queued
  // jobs sorted apart (the queue usually is already) and merged.
  const auto by_submit = [](const Active& a, const Active& b) {
    return std::tie(a.submit, a.index) < std::tie(b.submit, b.index);
  };
  std::vector<Active> running;
  std::vector<Active> queued;
  running.reserve(input.running.size());
  queued.reserve(input.queued.size());
  for (const RunningJob& r : input.running) running.push_back({r.spec->submit_s, r.index, r.spec, &r});
  for (const QueuedJob& q : input.queued) queued.push_back({q.spec->submit_s, q.index, q.spec, nullptr});
  for (std::vector<Active>* part : {&running, &queued})
    if (!std::is_sorted(part->begin(), part->end(), by_submit))
      std::sort(part->begin(), part->end(), by_submit);
  std::vector<Active> active(running.size() + queued.size());
  std::merge(running.begin(), running.end(), queued.begin(), queued.end(), active.begin(), by_submit);

  // Each job's raw row, current configuration and restart count: the
  // round's problem but for the restart factors.
  std::vector<JobKey> keys(active.size());
  std::vector<int> current_config(active.size(), -1);
  for (std::size_t i = 0; i < active.size(); ++i) {
    const Active& a = active[i];
    Memo& m = memo(a.index);
    if (!m.seen) {
      m.seen = true;
      m.last_update_s = now;
    }
    const std::vector<double>* row = &raw_row(*a.spec, m, problem.configs, types);
    if (a.running != nullptr) {
      const std::vector<GpuId>& gpus = a.running->placement.gpus;
      if (gpus != m.placed_on) {
        const std::string& type = cluster.gpu(gpus.front()).type;
        const int nodes = static_cast<int>(gpus_per_node(cluster, gpus).size());
        m.placed_on = gpus;
        m.placed_config = -1;
        for (std::size_t c = 0; c < problem.configs.size(); ++c) {
          const SiaConfig& cfg = problem.configs[c];
          if (cfg.gpus == static_cast<int>(gpus.size()) && cfg.nodes == nodes && types[cfg.type] == type)
            m.placed_config = static_cast<int>(c);
        }
      }
      current_config[i] = m.placed_config;
    }
    keys[i] = JobKey{a.index, current_config[i], m.restarts, row};
  }
  if (params_.start_from_running) problem.running = current_config;

  // Goodput matrix, row-normalised, with the restart factor
  // max(age - N S, 0) / (age + S) of the ages at time `at` on every
  // configuration but a running job's current one.
  // A queued job's row has no restart factor: queued jobs with the same raw
  // row have the same values, and share a row class (SiaIlpProblem), whose
  // later jobs get an empty row (the solver reads only the first), so a
  // long queue costs no copy of its rows.
  problem.row_class.assign(active.size(), SiaIlpProblem::kNoClass);
  {
    std::map<const std::vector<double>*, std::size_t> class_of;
    for (std::size_t i = 0; i < active.size(); ++i)
      if (active[i].running == nullptr)
        problem.row_class[i] = class_of.try_emplace(keys[i].row, class_of.size()).first->second;
  }
  auto values_at = [&](double at) {
    std::vector<std::vector<double>> values;
    values.reserve(active.size());
    std::size_t classes_seen = 0;
    for (std::size_t i = 0; i < active.size(); ++i) {
      const Active& a = active[i];
      const std::size_t k = problem.row_class[i];
      if (k != SiaIlpProblem::kNoClass) {
        if (k < classes_seen) {
          values.emplace_back();
          continue;
        }
        ++classes_seen;  // classes are numbered in job order
      }
      std::vector<double> row = *keys[i].row;
      double smallest = 0;
      for (double v : row)
        if (v > 0 && (smallest == 0 || v < smallest)) smallest = v;
      const double age = std::max(0.0, at - a.submit);
      const double s = restart_cost_s(a.spec->model);
      const double restart = age + s > 0 ? std::max(age - keys[i].restarts * s, 0.0) / (age + s) : 0.0;
      for (std::size_t c = 0; c < row.size(); ++c) {
        if (smallest > 0) row[c] /= smallest;
        if (a.running != nullptr && static_cast<int>(c) != current_config[i]) row[c] *= restart;
      }
      values.push_back(std::move(row));
    }
    return values;
  };
  auto solve_at = [&](double at) {
    problem.value = values_at(at);
    ++solves_;
    return solve_sia_ilp(problem);
  };

  // Unchanged rounds. Between two rounds with equal keys only the restart
  // factors differ, and they only grow with age (d/d age of the factor is
  // (N + 1) S / (age + S)^2 >= 0), so every column's cost only falls. An
  // answer in which every running job keeps its configuration or stops
  // (queued jobs may start: they have no restart factor) has a cost that
  // does not change with time. If the solver returns such an answer A for
  // the factors at a time T, no allocation beats A at any earlier time, so
  // rounds up to T keep A without a solve. Past T one solve at
  // now + 2 (T - the last proof) proves it again or, when it returns
  // anything else, the round is solved as usual.
  std::vector<int> chosen;
  const bool unchanged = params_.reuse_standing && standing_fixed_ && keys == standing_;
  if (unchanged && now <= proven_until_s_) {
    chosen = standing_answer_;
  } else if (unchanged) {
    horizon_s_ = std::max(2 * horizon_s_, params_.interval_s);
    if (solve_at(now + horizon_s_) == standing_answer_) {
      proven_until_s_ = now + horizon_s_;
      chosen = standing_answer_;
    }
  }
  if (chosen.empty() && !active.empty()) {
    chosen = solve_at(now);
    standing_ = keys;
    standing_answer_ = chosen;
    standing_fixed_ = true;
    for (std::size_t i = 0; i < active.size(); ++i)
      if (active[i].running != nullptr && chosen[i] != current_config[i] && chosen[i] != -1)
        standing_fixed_ = false;
    proven_until_s_ = now;
    horizon_s_ = 0;
  }
  chosen.resize(active.size(), -1);

  std::vector<const std::vector<GpuId>*> held(active.size(), nullptr);
  for (std::size_t i = 0; i < active.size(); ++i)
    if (active[i].running != nullptr) held[i] = &active[i].running->placement.gpus;
  const std::map<std::size_t, std::vector<std::pair<NodeId, int>>> placed =
      place_movers(cluster, pools, problem.configs, chosen, current_config, held);

  last_round_.clear();
  std::vector<TargetAllocation> targets;
  for (std::size_t i = 0; i < active.size(); ++i) {
    const Active& a = active[i];
    const bool keeps = chosen[i] >= 0 && chosen[i] == current_config[i];
    const auto it = placed.find(i);
    const int config = keeps || it != placed.end() ? chosen[i] : -1;
    static const std::string kNoType;
    const std::string& type = config >= 0 ? pools[problem.configs[config].type].type : kNoType;
    target_job(cluster,
               JobTarget{a.index, a.spec, a.running, problem.configs, config, type, keeps,
                         it == placed.end() ? nullptr : &it->second},
               now, targets);
  }
  if (targets.empty()) {
    if (params_.skip_rounds && params_.reuse_standing && !input.running.empty() && standing_fixed_ &&
        proven_until_s_ >= next_round_s_) {
      std::vector<JobIndex> running_jobs;  // in the round's (submit, index) order
      for (const Active& a : running) running_jobs.push_back(a.index);
      skip_unchanged_rounds(input, running_jobs, now);
    }
    return {};  // what apply_targets would answer, without its O(cluster) set-up
  }
  return apply_targets(input, targets, ResizeMode::CheckpointRestart);
}

void SiaPolicy::record_input(const SchedulerInput& input) {
  skip_jobs_.clear();
  skip_gpus_.clear();
  for (const RunningJob& r : input.running) {
    skip_jobs_.push_back(r.index);
    skip_gpus_.insert(skip_gpus_.end(), r.placement.gpus.begin(), r.placement.gpus.end());
  }
  skip_jobs_.push_back(static_cast<JobIndex>(-1));
  for (const QueuedJob& q : input.queued) skip_jobs_.push_back(q.index);
}

bool SiaPolicy::same_input(const SchedulerInput& input) const {
  if (skip_jobs_.size() != input.running.size() + 1 + input.queued.size()) return false;
  std::size_t j = 0;
  std::size_t g = 0;
  for (const RunningJob& r : input.running) {
    if (skip_jobs_[j++] != r.index) return false;
    for (const GpuId id : r.placement.gpus)
      if (g >= skip_gpus_.size() || skip_gpus_[g++] != id) return false;
  }
  if (g != skip_gpus_.size()) return false;
  ++j;
  for (const QueuedJob& q : input.queued)
    if (skip_jobs_[j++] != q.index) return false;
  return true;
}

std::optional<double> SiaPolicy::next_timer_s(double now_s) const {
  if (skip_to_s_ > next_round_s_ && skip_to_s_ > now_s) return skip_to_s_;
  if (next_round_s_ > now_s) return next_round_s_;
  return std::nullopt;
}

namespace {
const PolicyRegistration kSia(
    "sia", 80,
    ParamTable<SiaParams>()
        .number("interval_s", &SiaParams::interval_s, "scheduling round in seconds", NumberRange::positive())
        .number("p", &SiaParams::p, "exponent of the normalised goodputs in the ILP objective (non-zero)")
        .number("no_allocation_penalty", &SiaParams::no_allocation_penalty,
                "ILP penalty for a job left without GPUs (p < 0)")
        .whole("max_gpus_per_job", &SiaParams::max_gpus_per_job, 1, 1000000, "most GPUs one job may get")
        .number("batch_change_gain", &SiaParams::batch_change_gain,
                "least goodput gain for an in-place batch change")
        .number("relative_gap", &SiaParams::relative_gap,
                "ILP stops within this fraction of the optimum (Sia artifact: 1e-4); 0 = optimal",
                {0, 1, false, true})
        .whole("max_bb_nodes", &SiaParams::max_bb_nodes, 0, 100000000,
               "most CBC branch-and-bound nodes per round; 0 = no limit")
        .flag("knapsack", &SiaParams::knapsack,
              "1: one-GPU-type rounds solved exactly by a knapsack DP; 0: CBC every round")
        .flag("certify_start", &SiaParams::certify_start,
              "1: a CBC round whose start allocation a Lagrangian bound proves optimal skips CBC (same "
              "answer); 0: CBC every such round")
        .whole("search_nodes", &SiaParams::search_nodes, 0, 100000000,
               "CBC rounds whose start the certificate leaves unproven: a search of at most this many nodes "
               "for a cheaper allocation, skipping CBC where none exists (same answer); 0: CBC")
        .flag("exact_two_types", &SiaParams::exact_two_types,
              "1: CBC rounds take that search's optimum where it finishes within search_nodes (decisions "
              "may differ from CBC's capped search); 0: CBC's answer")
        .flag("start_from_running", &SiaParams::start_from_running,
              "1: CBC starts from the cheaper of its greedy repair and the running allocation (decisions may "
              "differ: CBC's capped search stops elsewhere); 0: the repair")
        .flag("keep_within_gap", &SiaParams::keep_within_gap,
              "1: CBC rounds whose start a search proves within relative_gap of every allocation return "
              "the start (decisions may differ: CBC may find one cheaper within the gap); 0: CBC")
        .flag("gap_search", &SiaParams::gap_search,
              "1 (with keep_within_gap): where an allocation beats the start by more than relative_gap, the "
              "search goes on to one within the gap and CBC runs only past its node cap (decisions may "
              "differ); 0: CBC")
        .flag("own_bb", &SiaParams::own_bb,
              "1 (with gap_search): where the search gives up, a branch and bound with re-optimised "
              "Lagrangian bounds to CBC's stopping rules instead of CBC (decisions may differ); 0: CBC")
        .flag("skip_rounds", &SiaParams::skip_rounds,
              "1 (with reuse_standing): rounds that would decide nothing, the input unchanged, are not run")
        .flag("reuse_standing", &SiaParams::reuse_standing,
              "1: a round that differs from the last solved one only by restart factors keeps the standing "
              "allocation while it is proven optimal; 0: solve every round"),
    [](const SiaParams& p) { return std::make_unique<SiaPolicy>(p); });
}  // namespace

}  // namespace vnsim
