#include "pollux_search.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <functional>
#include <limits>
#include <numeric>
#include <type_traits>
#include <utility>

#include "pollux_workers.hpp"
#include "vnsim/core/error.hpp"
#include "vnsim/policies/pollux_climb.hpp"

namespace vnsim::pollux {

Search::Search(const PolluxParams& params, GoodputEstimator& estimator, const Cluster& cluster,
               Mt19937_64Blocks& rng, GoodputTables& tables)
    : params_(params), estimator_(estimator), types_(tables.types()), rng_(rng), tables_(tables) {
  if (cluster.node_count() > kMaxSearchNodes)
    throw InputError("pollux: the cluster has " + std::to_string(cluster.node_count()) +
                     " nodes; its search indexes at most " + std::to_string(kMaxSearchNodes));
  lanes_.emplace_back();
  for (const NodeInfo& n : cluster.nodes()) {
    if (n.gpu_count > kMaxSearchNodeGpus)
      throw InputError("pollux: node " + std::to_string(n.id) + " has " + std::to_string(n.gpu_count) +
                       " GPUs; its search counts at most " + std::to_string(kMaxSearchNodeGpus) +
                       " per node");
    capacity_.push_back(n.gpu_count);
    lanes_[0].node_use.push_back(NodeUse{0, 0, 0, n.gpu_count});
  }
  if (types_.count() > 1) {
    type_of_rank_.resize(static_cast<std::size_t>(types_.count()));
    std::iota(type_of_rank_.begin(), type_of_rank_.end(), 0);
    std::sort(type_of_rank_.begin(), type_of_rank_.end(),
              [this](int a, int b) { return a != b && types_.smaller(a, b) == a; });
    std::vector<int> rank_of_type(type_of_rank_.size());
    for (std::size_t k = 0; k < type_of_rank_.size(); ++k)
      rank_of_type[static_cast<std::size_t>(type_of_rank_[k])] = static_cast<int>(k);
    for (std::size_t node = 0; node < capacity_.size(); ++node)
      node_rank_.push_back(rank_of_type[static_cast<std::size_t>(types_.of_node(node))]);
  }
  max_nodes_ = std::min({params.max_nodes_per_job, kMaxRowNodes, cluster.node_count()});
  max_gpus_ = std::min(params.max_gpus_per_job, cluster.gpu_count());
}

void Search::prepare() {
  hot_.clear();
  last_priced_.clear();
  for (Job& j : jobs) {
    j.current_gpus = j.current.gpus();
    TableKey key{j.spec->model, params_.adaptive_batch ? 0 : j.spec->global_batch, 0, false, 0};
    if (const NoiseScaleProfile* noise = estimator_.noise(*j.spec)) {
      if (noise->per_batch()) {
        key.epoch = noise->epoch_at(j.progress);
      } else {
        key.by_progress = true;
        key.progress = j.progress;
      }
    }
    std::vector<double>& table = tables_.cells(key);
    hot_.push_back(Hot{&table, table.empty() ? nullptr : table.data(), j.base_goodput, j.restart_factor,
                       j.max_gpus, j.current_gpus, j.running});
    j.key = std::move(key);
  }
  tables_.forget_others();
  current_rows_.clear();
  for (const Job& j : jobs) current_rows_.push_back(j.current);
}

void Search::price_current_rows() {
  // Priced once here instead of at every copy: a row the pricing changes
  // (GPUs the job cannot use) stays unscored, so that repair still sees
  // the row as it is.
  for (std::size_t j = 0; j < jobs.size(); ++j) {
    Row r = jobs[j].current;
    price(j, r);
    current_rows_[j] = r.n == jobs[j].current.n ? r : jobs[j].current;
  }
}

double Search::fill_cell(std::size_t j, std::size_t cell, int nodes, int gpus, int type) {
  // Under a lock: the tables and the estimator's memos are not for two
  // lanes at once. A job sharing a table that another job allocated
  // learns its data here, at its first look-up.
  const std::lock_guard<std::mutex> hold(fill_lock_);
  Hot& hot = hot_[j];
  std::vector<double>& table = *hot.table;
  if (table.empty())
    table.assign(static_cast<std::size_t>(max_nodes_) * max_gpus_ * static_cast<std::size_t>(types_.count()),
                 -1.0);
  std::atomic_ref<double*>(hot.cells).store(table.data(), std::memory_order_release);
  std::atomic_ref<double> goodput(table[cell]);
  if (goodput.load(std::memory_order_relaxed) < 0)
    goodput.store(batch_for(estimator_, params_.adaptive_batch, *jobs[j].spec, types_.name(type),
                            jobs[j].progress, nodes, gpus)
                      .goodput,
                  std::memory_order_relaxed);
  return goodput.load(std::memory_order_relaxed);
}

void Search::price(Lane& lane, std::size_t j, Row& r) {
  const int gpus = r.gpus();
  double s = speedup(j, r.n, gpus, row_type(r));
  if (s <= 0 && r.n > 0) r.n = 0;  // GPUs it cannot use are given back
  // Another GPU count is another allocation: same_as() only for rows
  // that hold as many GPUs as the current one.
  const Hot& hot = hot_[j];
  if (hot.running && r.n > 0 && (gpus != hot.current_gpus || !r.same_as(jobs[j].current)))
    s *= hot.restart_factor;
  if (params_.p == 0)
    r.term = std::log(s + kSpeedupFloor);
  else if (params_.p == -1)
    r.term = 1.0 / (s + kSpeedupFloor);  // the default; pow() dominated large rounds
  else
    r.term = std::pow(s + kSpeedupFloor, params_.p);
  r.scored = true;
  ++lane.priced;
}

double Search::fitness(Individual& ind) {
  // A round's seeds (PolluxPolicy::decide) hold many copies of a job's
  // row, unscored where the job's inputs changed since last round: a row
  // the same as the last one this job priced here takes its term. price()
  // reads only the row and the job's inputs, which stay for the search,
  // so the term is the same to the bit; a row that price() changed is
  // not kept.
  if (last_priced_.size() != jobs.size()) last_priced_.assign(jobs.size(), Row{});
  double sum = 0;
  for (std::size_t j = 0; j < jobs.size(); ++j) {
    Row& r = ind.rows[j];
    if (!r.scored) {
      Row& last = last_priced_[j];
      if (last.scored && last.n == r.n &&
          std::equal(r.node.begin(), r.node.begin() + r.n, last.node.begin()) &&
          std::equal(r.count.begin(), r.count.begin() + r.n, last.count.begin())) {
        r.term = last.term;
        r.scored = true;
        ++lanes_[0].priced;
      } else {
        const int n = r.n;
        price(j, r);
        last = r;
        last.scored = r.n == n;
      }
    }
    sum += r.term;
  }
  return finish_fitness(lanes_[0], ind, sum);
}

double Search::finish_fitness(Lane& lane, Individual& ind, double sum) {
  // The terms were summed in job order whether priced now or copied: the
  // same bits as pricing every row again (with p = 0 they are logs).
  lane.scored += static_cast<long>(jobs.size());
  ind.fitness = fitness_of_sum(sum);
  return ind.fitness;
}

double Search::fitness_of_sum(double sum) const {
  const double n = static_cast<double>(std::max<std::size_t>(1, jobs.size()));
  return params_.p == 0 ? std::exp(sum / n) : std::pow(sum / n, 1.0 / params_.p);
}

double Search::sum_past_which_lost(double must_beat) const {
  // Only for p < 0: each term, (s + floor)^p, is positive, so partial sums
  // only grow (rounding is monotone), and the fitness (sum / n)^(1/p) only
  // falls as they do. With p = 0 (logs) a term may be negative, and with
  // p > 0 the fitness rises with the sum. A little below the inverse, so
  // that rounding in it cannot skip a sum that already loses: breed()
  // decides on fitness_of_sum() itself.
  if (!(params_.p < 0) || !std::isfinite(must_beat) || !(must_beat > 0))
    return std::numeric_limits<double>::infinity();
  const double n = static_cast<double>(std::max<std::size_t>(1, jobs.size()));
  return n * std::pow(must_beat, params_.p) * (1 - 1e-9);
}

void Search::crossover(const Individual& a, const Individual& b, Individual& child) {
  const auto cut = static_cast<std::ptrdiff_t>(pick(rng_, jobs.size() + 1));
  child.rows.resize(jobs.size());
  child.repaired = false;
  std::copy(a.rows.begin(), a.rows.begin() + cut, child.rows.begin());
  std::copy(b.rows.begin() + cut, b.rows.end(), child.rows.begin() + cut);
}

double Search::breed(const Individual& a, const Individual& b, Individual& child, double must_beat) {
  return breed(lanes_[0], rng_, a, b, child, must_beat);
}

double Search::breed(DrawTape::Reader& draws, const Individual& a, const Individual& b, Individual& child,
                     double must_beat) {
  return breed(lanes_[0], draws, a, b, child, must_beat);
}

template <class Rng>
double Search::breed(Lane& lane, Rng& rng, const Individual& a, const Individual& b, Individual& child,
                     double must_beat) {
  // crossover(), mutate(), repair() and fitness() in one pass over the
  // jobs, with the same draws in the same order: the cut first, then
  // mutation's in job order. Repairing row j reads only the rows before
  // it, and pricing it only row j, so each row ends as the four passes
  // would leave it, and the sum adds the same terms in the same order.
  // Sizes and row pointers in locals: stores to a row's byte counts may
  // alias any object, so members would be read again at every row.
  const std::size_t n_jobs = jobs.size();
  const std::size_t cut = pick(rng, n_jobs + 1);
  child.rows.resize(n_jobs);
  child.repaired = true;
  Row* const rows = child.rows.data();
  const Row* const from_a = a.rows.data();
  const Row* const from_b = b.rows.data();
  const Row* const current = current_rows_.data();
  const double lost_from = sum_past_which_lost(lane, must_beat);
  begin_repair(lane);
  double sum = 0;
  for (std::size_t j = 0; j < n_jobs; ++j) {
    Row& r = rows[j];
    const std::uint64_t u53 = draw53(rng);
    // Mutation's "back to the current row" is the copy itself; the source
    // is selected without a branch, which the random draw would mispredict.
    const bool back = u53 < kBackToCurrent53;
    r = back ? current[j] : (j < cut ? from_a : from_b)[j];
    if (!back && u53 < kMutated53) mutate_row(rng, j, r, u53);
    // Within the job's caps: a repaired parent's row, kept or made sparser.
    const bool within_caps = !back && (u53 < kSparser53 || u53 >= kMutated53) && (j < cut ? a : b).repaired;
    if (r.n > 1)
      repair_row(lane, j, r, within_caps);
    else
      repair_one_node_row(lane, j, r);
    sum += scored_term(lane, j, r);
    if (sum >= lost_from && fitness_of_sum(sum) <= must_beat) {
      // Lost whatever the rows after j hold: only their draws are taken
      // (none from a tape, which nothing reads after this child).
      if constexpr (!std::is_same_v<Rng, DrawTape::Reader>) take_row_draws(rng, a, b, cut, j + 1);
      lane.repaired += static_cast<long>(j + 1);
      lane.scored += static_cast<long>(j + 1);
      child.repaired = false;
      child.fitness = -std::numeric_limits<double>::infinity();
      return child.fitness;
    }
  }
  lane.repaired += static_cast<long>(n_jobs);
  return finish_fitness(lane, child, sum);
}

template <class Rng>
void Search::take_row_draws(Rng& rng, const Individual& a, const Individual& b, std::size_t cut,
                            std::size_t first) {
  // As many draws per row as breed() and mutate_row() take, without
  // changing a row: pick() is one draw whatever its range, so only the
  // draws that choose whether a later one is taken are looked at. In one
  // loop (breed()'s losing children and every child of breed_on_lanes(),
  // where the calling thread takes them all).
  const std::size_t n_jobs = jobs.size();
  const std::size_t nodes = capacity_.size();
  const Row* const from_a = a.rows.data();
  const Row* const from_b = b.rows.data();
  for (std::size_t k = first; k < n_jobs; ++k) {
    const std::uint64_t u53 = draw53(rng);
    if (u53 < kBackToCurrent53 || u53 >= kMutated53) continue;  // the row's only draw
    const Row& r = (k < cut ? from_a : from_b)[k];
    const int n = r.n;
    if (u53 < kSparser53) {
      for (int i = 0; i < n; ++i) rng();  // a draw per node: dropped or not
      continue;
    }
    if (n > 0 && draw53(rng) < kSameSlot53) {
      rng();  // the slot
      rng();  // its raised count
      continue;
    }
    const auto node = static_cast<std::uint16_t>(pick(rng, nodes));
    bool slot = n < kMaxRowNodes;  // a node it does not use is added while there is room
    for (int i = 0; i < n && !slot; ++i) slot = r.node[i] == node;
    if (slot) rng();  // the raised count
  }
}

// Flattened: take_row_draws() and the recorder inlined, so that the
// recorder's place in the block stays in a register.
[[gnu::flatten]] void Search::record_child_draws(const Individual& a, const Individual& b, DrawTape& tape) {
  DrawTape::Recorder recorder = tape.record(rng_);
  take_row_draws(recorder, a, b, pick(recorder, jobs.size() + 1), 0);
  recorder.close();
}

void Search::mutate(Individual& ind) {
  ind.repaired = false;
  for (std::size_t j = 0; j < jobs.size(); ++j) mutate_row(rng_, j, ind.rows[j], draw53(rng_));
}

template <class Rng>
void Search::mutate_row(Rng& rng, std::size_t j, Row& r, std::uint64_t u53) {
  if (u53 < kBackToCurrent53) {
    r = current_rows_[j];  // its term as fitness() would price it
  } else if (u53 < kSparser53) {
    bool dropped = false;
    for (int i = 0; i < r.n; ++i)
      if (draw53(rng) < kDropNode53) {
        r.count[i] = 0;
        dropped = true;
      }
    if (r.compact() || dropped) r.scored = false;
  } else if (u53 < kMutated53) {
    int slot = -1;
    if (r.n > 0 && draw53(rng) < kSameSlot53) {
      slot = static_cast<int>(pick(rng, r.n));
    } else {
      const auto node = static_cast<std::uint16_t>(pick(rng, capacity_.size()));
      for (int i = 0; i < r.n; ++i)
        if (r.node[i] == node) slot = i;
      if (slot < 0 && r.n < kMaxRowNodes) {
        slot = r.n++;
        r.node[slot] = node;
        r.count[slot] = 0;
      }
    }
    if (slot >= 0) {
      const int cap = capacity_[r.node[slot]];
      const int lo = r.count[slot];
      const int raised = lo + static_cast<int>(pick(rng, cap - lo + 1));
      r.count[slot] = static_cast<std::uint8_t>(raised);
      // A node added with no GPU is dropped again: the row is as it was.
      if (r.compact() || raised != lo) r.scored = false;
    }
  }
}

void Search::begin_repair(Lane& lane) {
  // A node's marks count only in the repair that set them (lane.repair):
  // no clearing between repairs, which on a cluster of hundreds of nodes
  // was most of a search with few jobs.
  if (++lane.repair == 0) {  // wrapped: old marks would count again
    for (NodeUse& u : lane.node_use) u = NodeUse{0, 0, 0, u.capacity};
    lane.repair = 1;
  }
}

void Search::repair_one_node_row(Lane& lane, std::size_t j, Row& r) {
  // repair_row() on a row of at most one node, which neither claims a node
  // nor exceeds max_nodes_ (at least 1): what is over the job's cap (at
  // least 1 GPU) and over the node's room comes off its one node.
  if (r.n == 0) return;
  const std::uint32_t stamp = lane.repair;
  NodeUse& u = lane.node_use[r.node[0]];
  const int used = u.used_in == stamp ? u.used : 0;
  const int count = std::min<int>({r.count[0], hot_[j].max_gpus, u.capacity - used});
  u.used = used + count;
  u.used_in = stamp;
  if (count == r.count[0]) return;
  r.count[0] = static_cast<std::uint8_t>(count);
  if (count == 0) r.n = 0;
  r.scored = false;
}

const Individual& Search::tournament(const std::vector<Individual>& pop) {
  const Individual& a = pop[pick(rng_, pop.size())];
  const Individual& b = pop[pick(rng_, pop.size())];
  return a.fitness >= b.fitness ? a : b;
}

void Search::give_one_free_gpu_each(Individual& filled, const Cluster& cluster) const {
  std::vector<int> free_on(static_cast<std::size_t>(cluster.node_count()), 0);
  for (const NodeInfo& n : cluster.nodes()) free_on[n.id] = n.gpu_count;
  for (const Row& r : filled.rows)
    for (int i = 0; i < r.n; ++i) free_on[r.node[i]] -= r.count[i];
  std::size_t node = 0;
  for (Row& r : filled.rows) {
    if (r.n > 0) continue;
    for (std::size_t tried = 0; tried < free_on.size() && free_on[node] == 0; ++tried)
      node = (node + 1) % free_on.size();
    if (free_on[node] == 0) break;
    r.node[0] = static_cast<std::uint16_t>(node);
    r.count[0] = 1;
    r.n = 1;
    r.scored = false;
    --free_on[node];
  }
}

Individual Search::climbed() {
  ClimbProblem climb;
  climb.capacity = capacity();
  climb.max_nodes = max_nodes();
  climb.p = params_.p;
  climb.speedup = [this](std::size_t j, int nodes, int gpus) { return speedup(j, nodes, gpus); };
  for (const Job& j : jobs)  // a queued job's current row is empty
    climb.jobs.push_back(ClimbJob{j.current.pairs(), j.restart_factor, j.max_gpus});
  Individual out;
  for (const auto& row : climb_allocation(climb)) out.rows.push_back(Row::from(row));
  return out;
}

int Search::evolve(std::vector<Individual>& pop, std::vector<Individual>& children) {
  const double per_generation = static_cast<double>(params_.population) * static_cast<double>(jobs.size());
  int generations = params_.generations;
  if (per_generation * generations > params_.max_row_evaluations)
    generations = std::max(std::min(params_.min_generations, params_.generations),
                           static_cast<int>(params_.max_row_evaluations / per_generation));
  auto better = [](const Individual& a, const Individual& b) { return a.fitness > b.fitness; };
  bool pop_sorted = false;
  std::vector<Individual> merged(pop.size() + children.size());
  std::vector<std::size_t> order(children.size());
  std::vector<double> best;
  best.reserve(pop.size());
  double best_so_far = -std::numeric_limits<double>::infinity();
  for (const Individual& ind : pop) best_so_far = std::max(best_so_far, ind.fitness);
  int stalled = 0;
  int g = 0;
  const bool on_lanes = workers_ != nullptr && workers_->lanes() > 1 && jobs.size() >= parallel_min_jobs_ &&
                        children.size() > 1 && children.size() <= 0xffffffffULL;
  if (on_lanes) {
    while (lanes_.size() < static_cast<std::size_t>(workers_->lanes())) {
      lanes_.emplace_back();
      for (const NodeUse& u : lanes_[0].node_use)
        lanes_.back().node_use.push_back(NodeUse{0, 0, 0, u.capacity});
    }
    parents_.resize(children.size());
    tapes_.resize(children.size());
    // A child takes a draw per row and a few more for its cut and the rows
    // mutation changes: room for twice that, so a tape rarely grows.
    for (DrawTape& tape : tapes_) tape.draws.reserve(2 * jobs.size() + 16);
  }
  for (; g < generations && (params_.patience == 0 || stalled < params_.patience); ++g) {
    // Survival keeps pop.size() of the parents and children, a tie going
    // to a parent, then to the earlier child. So a child of at most the
    // pop.size()-th best fitness of the parents and the children bred
    // before it has that many ahead of it and loses: breed() may leave it
    // unfinished, and the survivors, their order and the draws stay the
    // same. `best` holds those pop.size() best, least first (a min-heap).
    best.clear();
    for (const Individual& ind : pop) best.push_back(ind.fitness);
    std::make_heap(best.begin(), best.end(), std::greater<>());
    if (on_lanes && workers_->worth_it()) {
      breed_on_lanes(pop, children, best);
    } else {
      for (Individual& child : children) {
        const Individual& a = tournament(pop);  // two statements: a fixed draw order
        const Individual& b = tournament(pop);
        const double f = breed(a, b, child, best.front());
        if (f > best.front()) {
          std::pop_heap(best.begin(), best.end(), std::greater<>());
          best.back() = f;
          std::push_heap(best.begin(), best.end(), std::greater<>());
        }
      }
    }
    // (mu + lambda) survival: the best of parents and children, in the
    // order a stable sort of the parents followed by the children gives:
    // the parents (sorted once, then kept sorted) merged with the children
    // sorted by fitness, then index, a tie going to the parent. A stable
    // sort of them all took a buffer from the heap at each generation.
    if (!pop_sorted) {
      std::stable_sort(pop.begin(), pop.end(), better);
      pop_sorted = true;
    }
    std::iota(order.begin(), order.end(), std::size_t{0});
    std::sort(order.begin(), order.end(), [&children](std::size_t x, std::size_t y) {
      return children[x].fitness > children[y].fitness ||
             (children[x].fitness == children[y].fitness && x < y);
    });
    std::size_t from_pop = 0;
    std::size_t from_children = 0;
    for (Individual& slot : merged) {
      const bool child_next =
          from_children < order.size() &&
          (from_pop == pop.size() || children[order[from_children]].fitness > pop[from_pop].fitness);
      slot = std::move(child_next ? children[order[from_children++]] : pop[from_pop++]);
    }
    for (std::size_t i = 0; i < pop.size(); ++i) pop[i] = std::move(merged[i]);
    for (std::size_t i = 0; i < children.size(); ++i) children[i] = std::move(merged[pop.size() + i]);
    if (pop.front().fitness > best_so_far) {
      best_so_far = pop.front().fitness;
      stalled = 0;
    } else {
      ++stalled;
    }
  }
  std::stable_sort(pop.begin(), pop.end(), better);
  for (std::size_t l = 1; l < lanes_.size(); ++l) {  // one count per search, whichever lane
    lanes_[0].priced += std::exchange(lanes_[l].priced, 0);
    lanes_[0].scored += std::exchange(lanes_[l].scored, 0);
    lanes_[0].repaired += std::exchange(lanes_[l].repaired, 0);
  }
  return g;
}

void Search::breed_on_lanes(const std::vector<Individual>& pop, std::vector<Individual>& children,
                            std::vector<double>& best) {
  struct Generation {
    Search* search;
    std::vector<Individual>* children;
    std::vector<double>* best;
  };
  Generation generation{this, &children, &best};
  bar_.store(best.front(), std::memory_order_relaxed);
  workers_->begin(
      children.size(),
      [](void* context, std::size_t i, int lane) {
        const Generation& gen = *static_cast<Generation*>(context);
        Search& s = *gen.search;
        // Strictly below the bar: the bar may come from a later child,
        // which loses a tie to this one.
        const double bar = s.bar_.load(std::memory_order_acquire);
        const double must_beat = std::nextafter(bar, -std::numeric_limits<double>::infinity());
        const auto [a, b] = s.parents_[i];
        DrawTape::Reader draws = s.tapes_[i].read();
        const double f =
            s.breed(s.lanes_[static_cast<std::size_t>(lane)], draws, *a, *b, (*gen.children)[i], must_beat);
        if (f > bar) {
          const std::lock_guard<std::mutex> hold(s.bar_lock_);
          std::vector<double>& heap = *gen.best;
          if (f > heap.front()) {
            std::pop_heap(heap.begin(), heap.end(), std::greater<>());
            heap.back() = f;
            std::push_heap(heap.begin(), heap.end(), std::greater<>());
            s.bar_.store(heap.front(), std::memory_order_release);
          }
        }
      },
      &generation);
  for (std::size_t i = 0; i < children.size(); ++i) {
    const Individual& a = tournament(pop);  // two statements: a fixed draw order
    const Individual& b = tournament(pop);
    parents_[i] = {&a, &b};
    record_child_draws(a, b, tapes_[i]);
    workers_->publish(i + 1);
  }
  workers_->finish();
}

}  // namespace vnsim::pollux
