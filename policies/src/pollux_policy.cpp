#include "vnsim/policies/pollux_policy.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <numeric>
#include <thread>
#include <tuple>

#include "allocation_plan.hpp"
#include "data_parallel_jobs.hpp"
#include "estimated_progress.hpp"
#include "pollux_search.hpp"
#include "pollux_workers.hpp"
#include "vnsim/core/error.hpp"
#include "vnsim/policies/policy_registration.hpp"
#include "vnsim/policies/pollux_climb.hpp"

namespace vnsim {

struct PolluxPolicy::Population {
  std::vector<JobIndex> jobs;                      // column order
  std::vector<int> max_gpus;                       // per column: the search's cap on the job's GPUs
  std::vector<pollux::Search::TermInputs> inputs;  // per column: what its rows' terms read
  std::vector<std::vector<pollux::Row>> rows;      // per individual, best first
  std::vector<char> repaired;                      // per individual: Individual::repaired
  std::vector<int> capacity;                       // the search's GPUs per node
  int max_nodes = 0;                               // and its cap on a job's nodes
};

PolluxPolicy::PolluxPolicy(PolluxParams params)
    : params_(params),
      rng_(params.seed),
      goodput_tables_(std::make_unique<pollux::GoodputTables>()),
      reuse_limit_(params.max_skipped_rounds) {
  if (!(params_.interval_s > 0)) throw InputError("pollux: interval_s must be > 0");
  if (!(params_.restart_s >= 0)) throw InputError("pollux: restart_s must be >= 0");
  if (params_.population < 2) throw InputError("pollux: population must be >= 2");
  if (params_.generations < 0) throw InputError("pollux: generations must be >= 0");
  if (!(params_.growth_limit >= 0)) throw InputError("pollux: growth_limit must be >= 0");
  if (params_.max_nodes_per_job < 1 || params_.max_gpus_per_job < 1)
    throw InputError("pollux: max_nodes_per_job and max_gpus_per_job must be >= 1");
  if (!std::isfinite(params_.p) || params_.p > 1) throw InputError("pollux: p must be <= 1");
  if (params_.patience < 0) throw InputError("pollux: patience must be >= 0");
  if (params_.min_generations < 0) throw InputError("pollux: min_generations must be >= 0");
  if (!(params_.quiet_backoff >= 1)) throw InputError("pollux: quiet_backoff must be >= 1");
  estimator_.rings_on_any_gpu_type(true);  // it prices a job as one GPU type
}

PolluxPolicy::~PolluxPolicy() = default;

PolluxPolicy::Memo& PolluxPolicy::memo(JobIndex job) {
  if (memos_.size() <= job) memos_.resize(job + 1);
  return memos_[job];
}

std::vector<Decision> PolluxPolicy::decide(const SchedulerInput& input) {
  // Jobs this policy cannot price are rejected with their reason; the rest
  // are decided on as if those were not there (no recursion: none is left).
  if (auto filtered = reject_non_data_parallel(input, name(), runnable_)) {
    std::vector<Decision> out = std::move(filtered->second);
    for (Decision& d : decide(filtered->first)) out.push_back(std::move(d));
    return out;
  }
  const double now = input.now_s;
  if (asleep_ && !wake_up(now)) return {};
  if (now < next_round_s_) return {};
  next_round_s_ = now + params_.interval_s;
  ++rounds_run_;
  estimator_.use_topology(input.view->topology());
  const Cluster& cluster = input.view->cluster();
  advance_estimated_progress(memos_, input, now);

  goodput_tables_->begin_round(input.view->topology(), estimator_);
  pollux::Search search(params_, estimator_, cluster, rng_, *goodput_tables_);
  add_search_jobs(input, search, now);
  search.prepare();
  const std::size_t n_jobs = search.jobs.size();
  if (n_jobs == 0) return {};
  const auto min_jobs = static_cast<std::size_t>(params_.search_threads_min_jobs);
  if (params_.search_threads > 1 && n_jobs >= min_jobs) {
    if (!workers_) {
      const int hardware = static_cast<int>(std::thread::hardware_concurrency());  // 0: unknown
      workers_ =
          std::make_unique<pollux::SearchWorkers>(std::min(params_.search_threads, std::max(1, hardware)));
    }
    search.use_workers(workers_.get(), min_jobs);
  }

  // Initial population: last round's final one remapped to today's jobs,
  // and the current allocation.
  pollux::Individual current;
  for (const pollux::Search::Job& j : search.jobs) current.rows.push_back(j.current);
  const bool same_as_last_search = unchanged_since_last_search(search);
  if (same_as_last_search && skipped_in_a_row_ < reuse_limit_) {
    ++skipped_in_a_row_;
    last_generations_ = 0;
    std::vector<Decision> decisions = targets_for(input, search, current);
    // Not while nothing runs: the driver counts idle timer wake-ups before
    // it rejects jobs that can never start.
    if (decisions.empty() && params_.sleep_quiet_rounds && !input.running.empty()) {
      if (const int quiet = quiet_rounds_ahead(input, now); quiet > 0) {
        asleep_ = true;
        grid_next_s_ = next_round_s_;
        for (int i = 0; i < quiet; ++i) next_round_s_ += params_.interval_s;
      }
    }
    return decisions;
  }
  skipped_in_a_row_ = 0;
  ++searches_;
  search.price_current_rows();
  for (std::size_t j = 0; j < n_jobs; ++j) current.rows[j] = search.current_row(j);
  // Every individual's rows come from recycled buffers (spare_rows_): a
  // round then allocates none once the buffers have grown to its size.
  auto copy_of = [this](const pollux::Individual& ind) {
    pollux::Individual out;
    out.rows = recycled_rows();
    out.rows.assign(ind.rows.begin(), ind.rows.end());
    out.fitness = ind.fitness;
    return out;
  };
  std::vector<pollux::Individual> pop;
  pop.reserve(2 * static_cast<std::size_t>(params_.population));
  pop.push_back(copy_of(current));
  // Plus one seed that gives every job without GPUs one free GPU.
  if (params_.population > 1) {
    pollux::Individual filled = copy_of(current);
    search.give_one_free_gpu_each(filled, cluster);
    pop.push_back(std::move(filled));
  }
  if (params_.greedy_seed && static_cast<int>(pop.size()) < params_.population)
    pop.push_back(search.climbed());
  if (previous_) {
    std::map<JobIndex, std::size_t> at;  // job -> its column last round
    for (std::size_t k = 0; k < previous_->jobs.size(); ++k) at.emplace(previous_->jobs[k], k);
    std::vector<std::ptrdiff_t> column;
    // Per job: whether last round's terms hold (the same inputs as then).
    std::vector<char> keeps_terms;
    for (std::size_t j = 0; j < n_jobs; ++j) {
      const auto it = at.find(search.jobs[j].index);
      column.push_back(it == at.end() ? -1 : static_cast<std::ptrdiff_t>(it->second));
      keeps_terms.push_back(it != at.end() &&
                            search.term_inputs(j).same_terms_as(previous_->inputs[it->second]));
    }
    // A repaired individual of last round stays repaired (repair leaves it
    // as it is, in any job order) when only finished jobs' rows left it and
    // the new jobs' rows are empty, on the same nodes, with no job's cap
    // lowered (a job's cap rises with the most GPUs it has had).
    bool still_repaired =
        previous_->capacity == search.capacity() && previous_->max_nodes == search.max_nodes();
    for (std::size_t j = 0; j < n_jobs && still_repaired; ++j)
      still_repaired =
          column[j] < 0 ? search.current_row(j).n == 0
                        : previous_->max_gpus[static_cast<std::size_t>(column[j])] <= search.jobs[j].max_gpus;
    for (std::size_t k = 0; k < previous_->rows.size(); ++k) {
      const std::vector<pollux::Row>& prev = previous_->rows[k];
      if (static_cast<int>(pop.size()) == params_.population) break;
      pollux::Individual ind;
      ind.repaired = still_repaired && previous_->repaired[k];
      ind.rows = recycled_rows();
      ind.rows.reserve(n_jobs);
      for (std::size_t j = 0; j < n_jobs; ++j) {
        if (column[j] < 0) {
          ind.rows.push_back(search.current_row(j));
          continue;
        }
        ind.rows.push_back(prev[static_cast<std::size_t>(column[j])]);
        // Priced last round: its term holds while the job's inputs do.
        if (!keeps_terms[j]) ind.rows.back().scored = false;
      }
      pop.push_back(std::move(ind));
    }
  }
  while (static_cast<int>(pop.size()) < params_.population) pop.push_back(copy_of(current));
  for (std::size_t i = 1; i < pop.size(); ++i)
    if (!pop[i].repaired) search.repair(pop[i]);
  for (pollux::Individual& ind : pop) search.fitness(ind);
  const double standing_fitness = pop.front().fitness;  // the current allocation's

  // Children and the losers of each survival reuse the same row buffers, so
  // a generation allocates nothing.
  std::vector<pollux::Individual> children(pop.size());
  for (pollux::Individual& child : children) child.rows = recycled_rows();
  last_generations_ = search.evolve(pop, children);
  // A best allocation that beats the standing one by no more than rounding
  // is a tie: keep the standing one. With more jobs than GPUs, every
  // allocation of one GPU per job has the same objective in exact
  // arithmetic (each job's speedup on one GPU is 1), and the order in which
  // the fitness sum adds the same terms decided, so every search swapped
  // all running jobs for queued ones (docs/POLICIES.md, "Scaling").
  if (params_.tie_tolerance > 0 &&
      !(pop.front().fitness > standing_fitness + params_.tie_tolerance * std::abs(standing_fitness))) {
    pollux::Individual standing = copy_of(current);
    search.fitness(standing);
    std::swap(pop.front().rows, standing.rows);
    pop.front().fitness = standing.fitness;
    pop.front().repaired = false;
    recycle(std::move(standing.rows));
  }
  rows_priced_ += search.rows_priced();
  rows_scored_ += search.rows_scored();
  rows_repaired_ += search.rows_repaired();
  auto next = std::make_shared<Population>();
  for (std::size_t j = 0; j < n_jobs; ++j) {
    next->jobs.push_back(search.jobs[j].index);
    next->max_gpus.push_back(search.jobs[j].max_gpus);
    next->inputs.push_back(search.term_inputs(j));
  }
  std::vector<Decision> decisions = targets_for(input, search, pop.front());
  // A search that only confirmed the standing allocation, on the inputs of
  // the last one, lets the next one wait quiet_backoff times longer.
  if (same_as_last_search && decisions.empty()) {
    const double longer = std::min<double>(reuse_limit_ * params_.quiet_backoff, params_.max_quiet_rounds);
    reuse_limit_ = std::max(reuse_limit_, static_cast<int>(longer));
  } else {
    reuse_limit_ = params_.max_skipped_rounds;
  }
  // The final population moves into `next`; the children's and last round's
  // buffers go back to the spares.
  next->rows.reserve(pop.size());
  for (pollux::Individual& ind : pop) {
    next->rows.push_back(std::move(ind.rows));
    next->repaired.push_back(ind.repaired);
  }
  next->capacity = search.capacity();
  next->max_nodes = search.max_nodes();
  for (pollux::Individual& child : children) recycle(std::move(child.rows));
  if (previous_)
    for (std::vector<pollux::Row>& rows : previous_->rows) recycle(std::move(rows));
  previous_ = std::move(next);
  return decisions;
}

void PolluxPolicy::add_search_jobs(const SchedulerInput& input, pollux::Search& search, double now) {
  const Cluster& cluster = input.view->cluster();
  const std::string gpu_type = cluster.gpu(0).type;
  struct Active {
    double attained;
    double submit;
    JobIndex index;
    const JobSpec* spec;
    const RunningJob* running;
  };
  std::vector<Active> active;
  for (const RunningJob& r : input.running)
    active.push_back({r.attained_gpu_s, r.spec->submit_s, r.index, r.spec, &r});
  for (const QueuedJob& q : input.queued)
    active.push_back({q.attained_gpu_s, q.spec->submit_s, q.index, q.spec, nullptr});
  // GA job order (simulator): least attained service first, then creation.
  std::sort(active.begin(), active.end(), [](const Active& a, const Active& b) {
    return std::tie(a.attained, a.submit, a.index) < std::tie(b.attained, b.submit, b.index);
  });
  const int total_gpus = cluster.gpu_count();
  const int fair =
      std::clamp(static_cast<int>(std::ceil(static_cast<double>(total_gpus) /
                                            static_cast<double>(std::max<std::size_t>(1, active.size())))),
                 1, cluster.max_gpus_per_node());
  std::vector<NodeId> nodes;  // Row::of_gpus()'s buffer
  for (const Active& a : active) {
    Memo& m = memo(a.index);
    if (!m.seen) {
      m.seen = true;
      m.last_update_s = now;
    }
    const double age = std::max(0.0, now - a.submit);
    pollux::Search::Job job{a.index, a.spec, m.progress, 0, 0, a.running != nullptr, pollux::Row{}, 0};
    job.base_goodput =
        pollux::batch_for(estimator_, params_.adaptive_batch, *a.spec, gpu_type, m.progress, 1, fair).goodput;
    if (!(job.base_goodput > 0))
      job.base_goodput =
          pollux::batch_for(estimator_, params_.adaptive_batch, *a.spec, gpu_type, m.progress, 1, 1).goodput;
    if (!(job.base_goodput > 0)) continue;  // cannot run on this cluster's GPUs
    job.restart_factor = std::max(age - m.restarts * params_.restart_s, 0.0) / (age + params_.restart_s);
    if (a.running != nullptr) job.current = pollux::Row::of_gpus(cluster, a.running->placement.gpus, nodes);
    const ModelParams& model = estimator_.model(*a.spec);
    const NoiseScaleProfile* noise = estimator_.noise(*a.spec);
    const int max_batch = noise != nullptr && params_.adaptive_batch
                              ? std::max(noise->max_batch, model.max_global_batch)
                              : a.spec->global_batch;
    job.max_gpus = std::max(1, std::min(search.max_gpus(), max_batch / std::max(1, model.min_local_batch)));
    if (a.running != nullptr)
      m.most_gpus = std::max(m.most_gpus, static_cast<int>(a.running->placement.gpus.size()));
    if (params_.growth_limit > 0)
      job.max_gpus = std::min(job.max_gpus,
                              std::max(1, static_cast<int>(std::floor(params_.growth_limit * m.most_gpus))));
    search.jobs.push_back(job);
  }
}

int PolluxPolicy::quiet_rounds_ahead(const SchedulerInput& input, double now) const {
  // This round reused the standing allocation and decided nothing. The
  // next rounds do the same while (1) the same jobs stay where they are:
  // any change reaches decide() as an event, which wakes the policy; (2) a
  // search is not due: max_skipped_rounds; (3) no job's goodput changes:
  // every goodput this policy reads (the speedup tables, the fair-share
  // base, the batch re-choice, the in-place batch's goodput) depends on a
  // job's progress only through the epoch of its per-batch noise profile
  // (NoiseScaleProfile::phi_at), and not at all without a profile. A job
  // whose profile has no epochs makes every round count: no sleep. Ages
  // (the restart factor) matter to a search only.
  const int due = reuse_limit_ - skipped_in_a_row_;
  if (due <= 0) return 0;
  double first_change = std::numeric_limits<double>::infinity();
  auto watch = [&](JobIndex index, const JobSpec& spec) {
    if (index >= memos_.size()) return true;
    const Memo& m = memos_[index];
    if (!(m.rate > 0)) return true;  // its progress stands still
    const NoiseScaleProfile* noise = estimator_.noise(spec);
    if (noise == nullptr) return true;
    if (!noise->per_batch()) return false;
    const int epoch = noise->epoch_at(m.progress);
    if (epoch + 1 >= static_cast<int>(noise->epoch_end.size())) return true;  // the last one lasts
    const double from = std::max(now, m.no_progress_until_s);
    first_change = std::min(first_change,
                            from + (noise->epoch_end[static_cast<std::size_t>(epoch)] - m.progress) / m.rate);
    return true;
  };
  for (const RunningJob& r : input.running)
    if (!watch(r.index, *r.spec)) return 0;
  for (const QueuedJob& q : input.queued)
    if (!watch(q.index, *q.spec)) return 0;
  // Rounds before the first change, with a round to spare for rounding: a
  // round run early is one the policy would have run anyway.
  int quiet = 0;
  for (double t = next_round_s_; quiet < due && t + params_.interval_s < first_change;
       t += params_.interval_s)
    ++quiet;
  return quiet;
}

bool PolluxPolicy::wake_up(double now) {
  // The rounds of the grid before `now`, or before the wake-up round when
  // that is due (a real clock calls a little after its timer), were quiet
  // ones, slept through: each counts as a round that reused the last search.
  const double wake = next_round_s_;
  const double until = now >= wake ? wake : now;
  while (grid_next_s_ < until) {
    ++skipped_in_a_row_;
    ++rounds_slept_;
    grid_next_s_ += params_.interval_s;
  }
  asleep_ = false;
  next_round_s_ = grid_next_s_;
  return now >= next_round_s_;
}

std::vector<pollux::Row> PolluxPolicy::recycled_rows() {
  if (spare_rows_.empty()) return {};
  std::vector<pollux::Row> rows = std::move(spare_rows_.back());
  spare_rows_.pop_back();
  rows.clear();
  return rows;
}

void PolluxPolicy::recycle(std::vector<pollux::Row>&& rows) {
  // A round takes at most two populations' worth (population and children).
  if (spare_rows_.size() < 2 * static_cast<std::size_t>(params_.population))
    spare_rows_.push_back(std::move(rows));
}

bool PolluxPolicy::unchanged_since_last_search(const pollux::Search& search) const {
  const std::vector<pollux::Search::Job>& jobs = search.jobs;
  if (params_.max_skipped_rounds == 0) return false;
  if (!previous_ || previous_->rows.empty() || previous_->jobs.size() != jobs.size()) return false;
  // The same jobs, each on the GPUs last round's best allocation gave it
  // (nothing arrived, ended, failed to start or was moved by the engine),
  // each with the same cap on its GPUs (growth_limit raises it).
  std::vector<std::pair<JobIndex, std::size_t>> at;  // job -> its column last round, sorted
  at.reserve(jobs.size());
  for (std::size_t k = 0; k < previous_->jobs.size(); ++k) at.emplace_back(previous_->jobs[k], k);
  std::sort(at.begin(), at.end());
  const std::vector<pollux::Row>& best = previous_->rows.front();
  for (const pollux::Search::Job& j : jobs) {
    const auto it = std::lower_bound(at.begin(), at.end(), std::make_pair(j.index, std::size_t{0}));
    if (it == at.end() || it->first != j.index || !best[it->second].same_as(j.current) ||
        previous_->max_gpus[it->second] != j.max_gpus)
      return false;
  }
  return true;
}

std::vector<Decision> PolluxPolicy::targets_for(const SchedulerInput& input, const pollux::Search& search,
                                                const pollux::Individual& best) {
  // The best allocation, with each job's goodput-maximising batch.
  const double now = input.now_s;
  const std::size_t n_jobs = search.jobs.size();
  last_round_.clear();
  std::vector<TargetAllocation> targets;
  for (std::size_t j = 0; j < n_jobs; ++j) {
    const pollux::Search::Job& job = search.jobs[j];
    const pollux::Row& row = best.rows[j];
    Memo& m = memo(job.index);
    if (row.n == 0) {
      if (job.running) targets.push_back(TargetAllocation{job.index, {}, 0, 1, false});
      m.rate = 0;
      continue;
    }
    const int gpus = row.gpus();
    // Chosen for the least-memory type of its GPUs, so that every GPU holds
    // the micro-batch.
    const BatchChoice c =
        pollux::batch_for(estimator_, params_.adaptive_batch, *job.spec,
                          search.type_name(search.row_type(row)), job.progress, row.n, gpus);
    const bool moves = !job.running || !row.same_as(job.current);
    if (moves && !(c.goodput > 0)) {  // cannot run there: fitness gives such rows back, so a guard only
      if (job.running) targets.push_back(TargetAllocation{job.index, {}, 0, 1, false});
      m.rate = 0;
      continue;
    }
    last_round_[job.index] = Chosen{gpus, row.n, c};
    const int batch_now = m.batch > 0 ? m.batch : job.spec->global_batch;
    TargetAllocation t{job.index, row.pairs(), c.global_batch, c.accumulation_steps + 1, false, batch_now};
    const NoiseScaleProfile* noise = estimator_.noise(*job.spec);
    const double m0 = noise != nullptr ? noise->initial_batch : std::max(1, job.spec->global_batch);
    if (!moves) {
      // Same GPUs: change the batch in place only when it pays.
      const int batch = batch_now;
      const double phi = noise != nullptr ? noise->phi_at(job.progress, batch) : 0;
      const double eff = noise != nullptr ? statistical_efficiency(phi, m0, batch) : 1;
      const double now_goodput = m.iteration_s > 0 ? batch / m.iteration_s * eff : 0;
      if (c.global_batch == batch || c.goodput < now_goodput * (1 + params_.batch_change_gain)) {
        if (m.iteration_s > 0) m.rate = now_goodput / m0;
        continue;
      }
      t.batch_changed = true;
    } else if (job.running) {
      ++m.restarts;
      m.no_progress_until_s = now + params_.restart_s;
    }
    m.batch = c.global_batch;
    m.vn_per_gpu = c.accumulation_steps + 1;
    m.iteration_s = c.iteration_s;
    m.rate = c.goodput / m0;
    targets.push_back(std::move(t));
  }
  return apply_targets(input, targets, ResizeMode::CheckpointRestart);
}

std::optional<double> PolluxPolicy::next_timer_s(double now_s) const {
  if (next_round_s_ > now_s) return next_round_s_;
  return std::nullopt;
}

namespace {
const PolicyRegistration kPollux(
    "pollux", 60,
    ParamTable<PolluxParams>()
        .number("interval_s", &PolluxParams::interval_s, "scheduling round in seconds",
                NumberRange::positive())
        .number("restart_s", &PolluxParams::restart_s, "delta of the restart factor (s)",
                NumberRange::non_negative())
        .number("p", &PolluxParams::p, "generalised-mean exponent of the speedups (fairness)",
                {-std::numeric_limits<double>::infinity(), 1, false, false})
        .whole("population", &PolluxParams::population, 1, 1000000, "genetic search population")
        .whole("generations", &PolluxParams::generations, 1, 1000000,
               "genetic search generations (fewer when capped by max_row_evaluations)")
        .number("batch_change_gain", &PolluxParams::batch_change_gain,
                "least goodput gain for an in-place batch change")
        .number("max_row_evaluations", &PolluxParams::max_row_evaluations,
                "cap on population x generations x jobs per round")
        .whole("min_generations", &PolluxParams::min_generations, 0, 1000000,
               "fewest generations of a round that max_row_evaluations caps")
        .whole("patience", &PolluxParams::patience, 0, 1000000,
               "stop a round's search after this many generations without improvement; 0 = never")
        .flag("greedy_seed", &PolluxParams::greedy_seed,
              "1: seed each round's search with a greedy allocation; 0: Pollux's own seeds only")
        .flag("adaptive_batch", &PolluxParams::adaptive_batch,
              "1: goodput-optimal batch per allocation; 0: each job keeps its own batch")
        .number("growth_limit", &PolluxParams::growth_limit,
                "F > 0: at most F x the most GPUs a job has run on (Pollux simulator: 2); 0 = no limit",
                NumberRange::non_negative())
        .whole("max_skipped_rounds", &PolluxParams::max_skipped_rounds, 0, 1000000,
               "reuse the last search's allocation while nothing changed, for up to this many rounds; 0 = "
               "search every round")
        .number("quiet_backoff", &PolluxParams::quiet_backoff,
                "F >= 1: a search that keeps everything on the last search's inputs multiplies the rounds "
                "reused before the next one by F (up to max_quiet_rounds); 1 = every max_skipped_rounds",
                {1, std::numeric_limits<double>::infinity(), false, false})
        .whole("max_quiet_rounds", &PolluxParams::max_quiet_rounds, 0, 100000000,
               "most rounds reused in a row after searches that kept everything (quiet_backoff)")
        .number("tie_tolerance", &PolluxParams::tie_tolerance,
                "a search's best allocation replaces the current one only if its objective is higher by more "
                "than this fraction; 0 = any higher value, rounding included",
                NumberRange::non_negative())
        .flag("sleep_quiet_rounds", &PolluxParams::sleep_quiet_rounds,
              "1: do not run rounds that can only keep the standing allocation (same decisions); 0: run "
              "every round")
        .whole("search_threads", &PolluxParams::search_threads, 1, 256,
               "threads that breed a search's children (at most the hardware's); the same decisions for any "
               "number; 1 = one thread")
        .whole("search_threads_min_jobs", &PolluxParams::search_threads_min_jobs, 0, 100000000,
               "searches of fewer jobs breed on one thread")
        .seed("seed", &PolluxParams::seed, "seed of the genetic search (replay: --seed unless given here)"),
    [](const PolluxParams& p) { return std::make_unique<PolluxPolicy>(p); });
}  // namespace

}  // namespace vnsim
