#pragma once
// Pollux's genetic search over allocations (Qiao et al., OSDI'21; petuum/adaptdl
// osdi21-artifact simulator/pollux.py): one round's jobs in GA order, their
// speedup tables, and the operators (crossover, mutation, repair, tournament)
// that pollux_policy.cpp runs generation by generation. Private to policies/.
#include <algorithm>
#include <array>
#include <cstdint>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "memory_bound_types.hpp"
#include "vnsim/core/cluster.hpp"
#include "vnsim/policies/goodput_estimator.hpp"
#include "vnsim/policies/pollux_policy.hpp"

namespace vnsim::pollux {

constexpr int kMaxRowNodes = 16;  // Pollux simulator: at most 16 nodes per job
constexpr double kSpeedupFloor = 1e-3;

// One job's allocation: GPUs on up to kMaxRowNodes nodes. Fixed size, so a
// population of 100 individuals x 1,000 jobs copies as flat memory.
struct Row {
  std::array<std::uint32_t, kMaxRowNodes> node{};
  std::array<std::uint16_t, kMaxRowNodes> count{};
  std::uint8_t n = 0;

  int gpus() const {
    int k = 0;
    for (int i = 0; i < n; ++i) k += count[i];
    return k;
  }
  void drop(int i) {
    node[i] = node[n - 1];
    count[i] = count[n - 1];
    --n;
  }
  void compact() {
    for (int i = 0; i < n;)
      if (count[i] == 0)
        drop(i);
      else
        ++i;
  }
  std::vector<std::pair<NodeId, int>> pairs() const {
    std::vector<std::pair<NodeId, int>> out;
    for (int i = 0; i < n; ++i) out.emplace_back(node[i], count[i]);
    std::sort(out.begin(), out.end());
    return out;
  }
  bool same_as(const Row& o) const {
    if (n != o.n) return false;
    for (int i = 0; i < n; ++i) {
      bool found = false;
      for (int k = 0; k < o.n && !found; ++k) found = o.node[k] == node[i] && o.count[k] == count[i];
      if (!found) return false;
    }
    return true;
  }
  static Row from(const std::vector<std::pair<NodeId, int>>& p) {
    Row r;
    for (const auto& [node, count] : p) {
      if (r.n == kMaxRowNodes) break;
      r.node[r.n] = static_cast<std::uint32_t>(node);
      r.count[r.n] = static_cast<std::uint16_t>(count);
      ++r.n;
    }
    return r;
  }
};

// Portable draws: raw mt19937_64 outputs (whose sequence the standard fixes),
// not std:: distributions (whose algorithms differ between libraries).
inline double uniform01(std::mt19937_64& rng) {
  return static_cast<double>(rng() >> 11) * 0x1.0p-53;
}
inline std::size_t pick(std::mt19937_64& rng, std::size_t n) {
  return std::min(n - 1, static_cast<std::size_t>(uniform01(rng) * static_cast<double>(n)));
}

// The goodput-maximising batch, or the job's own one without adaptive batch.
inline BatchChoice batch_for(GoodputEstimator& estimator, bool adaptive, const JobSpec& job,
                             const std::string& gpu_type, double progress, int nodes, int gpus) {
  return adaptive ? estimator.best(job, gpu_type, progress, nodes, gpus)
                  : estimator.fixed_batch_goodput(job, gpu_type, progress, nodes, gpus);
}

// One individual of the population: a row per job, in the search's job order.
struct Individual {
  std::vector<Row> rows;
  double fitness = 0;
};

// One round's search problem: the jobs in GA order, their speedup tables and
// the genetic operators.
class Search {
 public:
  struct Job {
    JobIndex index;
    const JobSpec* spec;
    double progress;
    double base_goodput;
    double restart_factor;  // applied when the allocation changes
    bool running;
    Row current;
    int max_gpus;
  };

  // `tables` holds the round's speedup tables; the caller keeps it from
  // round to round so that they allocate nothing once it has grown.
  Search(const PolluxParams& params, GoodputEstimator& estimator, const Cluster& cluster,
         std::mt19937_64& rng, std::vector<float>& tables);

  std::vector<Job> jobs;

  int max_nodes() const { return max_nodes_; }
  const std::vector<int>& capacity() const { return capacity_; }
  int max_gpus() const { return max_gpus_; }

  // The GPU type a row is priced and memory-checked as: the least-memory
  // type of its nodes (type 0, the first GPU's, on a homogeneous cluster).
  int row_type(const Row& r) const {
    int type = r.n > 0 ? types_.of_node(r.node[0]) : 0;
    for (int i = 1; i < r.n; ++i) type = types_.smaller(type, types_.of_node(r.node[i]));
    return type;
  }
  const std::string& type_name(int type) const { return types_.name(type); }

  // Speedup of job j on (nodes, gpus) of `type`, memoised for the round.
  double speedup(std::size_t j, int nodes, int gpus, int type = 0) {
    if (gpus == 0) return 0;
    if (nodes > max_nodes_ || gpus > jobs[j].max_gpus) return 0;
    const std::size_t per_type = static_cast<std::size_t>(max_nodes_) * max_gpus_;
    std::size_t& at = table_at_[j];
    if (at == kNoTable) {  // the job's first look-up this round: its table, all unknown
      at = tables_.size();
      tables_.resize(at + per_type * static_cast<std::size_t>(types_.count()), -1.0f);
    }
    float& cell = tables_[at + per_type * static_cast<std::size_t>(type) +
                          static_cast<std::size_t>(nodes - 1) * max_gpus_ + (gpus - 1)];
    if (cell < 0) {
      const BatchChoice c = batch_for(estimator_, params_.adaptive_batch, *jobs[j].spec, types_.name(type),
                                      jobs[j].progress, nodes, gpus);
      cell = static_cast<float>(c.goodput / jobs[j].base_goodput);
    }
    return cell;
  }

  void prepare() {
    tables_.clear();  // keeps its capacity: the caller's buffer, reused every round
    table_at_.assign(jobs.size(), kNoTable);
  }

  double fitness(Individual& ind);

  // Into `child`, whose rows buffer is reused across generations.
  void crossover(const Individual& a, const Individual& b, Individual& child);

  // Per job row, as in the Pollux simulator: back to the current allocation
  // (p 0.1), sparser (p 0.1: each node dropped with p 0.1), or raised on one
  // node (p 0.1: a node it uses, or any node, to U[current, node size]).
  void mutate(Individual& ind);

  // Pollux's repair, in order: one distributed job per node; total GPUs and
  // nodes per job capped; node capacity, earlier jobs first.
  void repair(Individual& ind);

  // By reference: an individual of 1,000 jobs is ~100 kB.
  const Individual& tournament(const std::vector<Individual>& pop);

  // Seeds of the first population (PolluxPolicy::decide adds the current
  // allocation and last round's final population around them).
  // `filled` (a copy of the current allocation) gives every job without
  // GPUs one free GPU, in GA order, while free GPUs remain: on large
  // clusters the few generations the cap allows would otherwise start most
  // queued jobs only rounds later (docs/POLICIES.md, "Scaling").
  void give_one_free_gpu_each(Individual& filled, const Cluster& cluster) const;
  // The greedy climb's allocation (params.greedy_seed; pollux_climb.hpp).
  Individual climbed();

  // The genetic search from `pop` (fitness known): (mu + lambda) survival of
  // pop.size() children per generation, for params.generations (fewer when
  // population x jobs x generations exceeds params.max_row_evaluations) or
  // until params.patience generations bring no better fitness. `children`
  // holds one row buffer per individual, reused across generations; it ends
  // with the losers. Returns the generations run; `pop` ends sorted, best
  // first.
  int evolve(std::vector<Individual>& pop, std::vector<Individual>& children);

 private:
  const PolluxParams& params_;
  GoodputEstimator& estimator_;
  MemoryBoundTypes types_;
  std::mt19937_64& rng_;
  std::vector<int> capacity_;
  std::vector<char> claimed_;
  std::vector<int> used_;
  std::vector<std::uint32_t> touched_;  // nodes whose claimed_/used_ this repair set
  static constexpr std::size_t kNoTable = static_cast<std::size_t>(-1);
  std::vector<float>& tables_;         // every job's table, one after another
  std::vector<std::size_t> table_at_;  // per job: where its table starts, or kNoTable
  int max_nodes_ = 1;
  int max_gpus_ = 1;
};

}  // namespace vnsim::pollux
