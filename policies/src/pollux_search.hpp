#pragma once
// Pollux's genetic search over allocations (Qiao et al., OSDI'21; petuum/adaptdl
// osdi21-artifact simulator/pollux.py): one round's jobs in GA order, their
// speedup tables, and the operators (crossover, mutation, repair, tournament)
// that pollux_policy.cpp runs generation by generation. Private to policies/.
#include <algorithm>
#include <array>
#include <atomic>
#include <cstdint>
#include <limits>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "memory_bound_types.hpp"
#include "pollux_goodput_tables.hpp"
#include "vnsim/core/cluster.hpp"
#include "vnsim/policies/goodput_estimator.hpp"
#include "vnsim/policies/mt19937_64_blocks.hpp"
#include "vnsim/policies/pollux_policy.hpp"

namespace vnsim::pollux {

class SearchWorkers;  // pollux_workers.hpp

constexpr int kMaxRowNodes = 16;  // Pollux simulator: at most 16 nodes per job
constexpr double kSpeedupFloor = 1e-3;

// Node ids of a row are 16-bit and its GPU counts 8-bit: a row then takes
// one 64-byte cache line instead of 112 bytes, and a generation's copies
// and passes touch that much less memory (with thousands of queued jobs a
// population is tens of MB). Search's constructor rejects a cluster with
// more nodes or more GPUs on a node.
constexpr int kMaxSearchNodes = 65536;
constexpr int kMaxSearchNodeGpus = 255;

// One job's allocation: GPUs on up to kMaxRowNodes nodes. Fixed size, so a
// population of 100 individuals x 1,000 jobs copies as flat memory.
struct Row {
  std::array<std::uint16_t, kMaxRowNodes> node{};
  std::array<std::uint8_t, kMaxRowNodes> count{};
  std::uint8_t n = 0;
  // The row's term of this round's fitness sum, valid while `scored`: a
  // child copies most rows unchanged from its parents, so only the rows
  // that mutation or repair touched are priced again (Search::fitness).
  // Whatever changes node, count or n clears it; a row of another round
  // (last round's population) is cleared before it enters the search.
  bool scored = false;
  double term = 0;

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
  // Drops the nodes left with no GPU; whether it dropped any.
  bool compact() {
    bool dropped = false;
    for (int i = 0; i < n;)
      if (count[i] == 0) {
        drop(i);
        dropped = true;
      } else {
        ++i;
      }
    return dropped;
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
      r.node[r.n] = static_cast<std::uint16_t>(node);
      r.count[r.n] = static_cast<std::uint8_t>(count);
      ++r.n;
    }
    return r;
  }
  // Row::from(gpus_per_node(cluster, gpus)) (allocation_plan.hpp) without
  // its map: the GPUs' nodes sorted in `nodes` (a buffer the caller keeps),
  // then counted in that order, so the same first kMaxRowNodes nodes with
  // the same counts. Every round reads each running job's row: a map node
  // per GPU was 1.5-5 % of a replay of the heavy trace.
  static Row of_gpus(const Cluster& cluster, const std::vector<GpuId>& gpus, std::vector<NodeId>& nodes) {
    nodes.clear();
    for (GpuId g : gpus) nodes.push_back(cluster.gpu(g).node);
    std::sort(nodes.begin(), nodes.end());
    Row r;
    for (std::size_t i = 0; i < nodes.size();) {
      if (r.n == kMaxRowNodes) break;
      std::size_t end = i + 1;
      while (end < nodes.size() && nodes[end] == nodes[i]) ++end;
      r.node[r.n] = static_cast<std::uint16_t>(nodes[i]);
      r.count[r.n] = static_cast<std::uint8_t>(end - i);
      ++r.n;
      i = end;
    }
    return r;
  }
};

static_assert(sizeof(Row) <= 64, "a row fits a cache line");

// Portable draws: raw mt19937_64 outputs (whose sequence the standard fixes),
// not std:: distributions (whose algorithms differ between libraries).
// uniform01() is the top 53 bits of a draw, scaled by 2^-53 (exact).
// `Rng` is the generator or a child's recorded draws (DrawTape); inlined,
// as they were before they took either: a call per draw showed.
template <class Rng>
[[gnu::always_inline]] inline std::uint64_t draw53(Rng& rng) {
  return rng() >> 11;
}
template <class Rng>
[[gnu::always_inline]] inline double uniform01(Rng& rng) {
  return static_cast<double>(draw53(rng)) * 0x1.0p-53;
}
// For 0 <= k <= 1: uniform01() < k exactly when draw53() < below53(k). With
// m = draw53(), uniform01() is m * 2^-53 to the bit (m < 2^53), and k * 2^53
// is exact (a power-of-two scaling), so the comparison is m < k * 2^53 in
// real numbers, which for an integer m is m < ceil(k * 2^53). Mutation's
// draws are then compared as integers, without converting each to a double.
constexpr std::uint64_t below53(double k) {
  const double scaled = k * 0x1.0p53;
  const auto whole = static_cast<std::uint64_t>(scaled);  // floor: scaled >= 0
  return static_cast<double>(whole) < scaled ? whole + 1 : whole;
}
template <class Rng>
[[gnu::always_inline]] inline std::size_t pick(Rng& rng, std::size_t n) {
  return std::min(n - 1, static_cast<std::size_t>(uniform01(rng) * static_cast<double>(n)));
}

// One child's raw draws, taken on the calling thread in the one-lane order
// and read back in that order by the lane that breeds the child
// (Search::use_workers): a few hundred bytes per child where a copy of the
// generator is 5 kB, and a lane that leaves a losing child need not take
// the draws it would have skipped.
struct DrawTape {
  std::vector<std::uint64_t> draws;
  // Draws from `rng`, each one kept: read in place from the generator's
  // block, whose span is copied to the tape when the block runs out and
  // at close(). With a call and a vector append per draw, the calling
  // thread's pass over every child (Search::record_child_draws) took 16 %
  // of a two-lane replay's samples, and the other lanes wait for it.
  // Nothing else may draw from `rng` before close().
  class Recorder {
   public:
    Recorder(Mt19937_64Blocks& rng, std::vector<std::uint64_t>& draws)
        : rng_(&rng), draws_(&draws), from_(rng.pending()), next_(from_), end_(rng.block_end()) {
      draws.clear();
    }
    [[gnu::always_inline]] std::uint64_t operator()() {
      if (next_ == end_) [[unlikely]] {
        from_ = next_ = keep(*rng_, *draws_, from_, end_);
        end_ = rng_->block_end();
      }
      return *next_++;
    }
    // Keeps the draws taken since the last block began; the generator
    // goes on after them.
    void close() {
      draws_->insert(draws_->end(), from_, next_);
      rng_->drawn_to(next_);
    }

   private:
    // Keeps [from, to) of the block, which ends at `to`, and starts the
    // next block: returns where it begins. Static and out of line, so that
    // the recorder's pointers stay in registers in the loop that draws.
    [[gnu::noinline]] static const std::uint64_t* keep(Mt19937_64Blocks& rng,
                                                       std::vector<std::uint64_t>& draws,
                                                       const std::uint64_t* from, const std::uint64_t* to) {
      draws.insert(draws.end(), from, to);
      rng.drawn_to(to);
      return rng.pending();
    }
    Mt19937_64Blocks* rng_;
    std::vector<std::uint64_t>* draws_;
    const std::uint64_t* from_;
    const std::uint64_t* next_;
    const std::uint64_t* end_;
  };
  // The kept draws, in order.
  struct Reader {
    const std::uint64_t* next;
    std::uint64_t operator()() { return *next++; }
  };
  // Call close() on it after the child's last draw.
  Recorder record(Mt19937_64Blocks& rng) { return Recorder(rng, draws); }
  Reader read() const { return Reader{draws.data()}; }
};

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
  // Left as repair() leaves it (by repair() or breed()): no node over its
  // capacity, no two multi-node rows on one node, no row over its job's
  // caps. Repairing it again, in any job order, changes nothing, nor does
  // it after rows are dropped or empty rows added (PolluxPolicy::decide
  // then skips it).
  bool repaired = false;
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
    int current_gpus = 0;  // current.gpus(), set by prepare()
    TableKey key{};        // of its goodput table, set by prepare()
  };

  // What a job's fitness term reads besides its row: equal inputs give
  // every row the same term, to the bit, so a row of the last search's
  // population keeps its term in this one (PolluxPolicy::decide).
  struct TermInputs {
    TableKey key{};
    long tables_generation = 0;
    double base_goodput = 0;
    int max_gpus = 0;
    bool running = false;
    double restart_factor = 0;  // read only for a running job's moved rows
    Row current;                // idem
    bool same_terms_as(const TermInputs& o) const {
      if (tables_generation != o.tables_generation || base_goodput != o.base_goodput ||
          max_gpus != o.max_gpus || running != o.running || !(key == o.key))
        return false;
      return !running || (restart_factor == o.restart_factor && current.gpus() == o.current.gpus() &&
                          current.same_as(o.current));
    }
  };
  TermInputs term_inputs(std::size_t j) const {
    const Job& job = jobs[j];
    return TermInputs{job.key,     tables_.generation(), job.base_goodput, job.max_gpus,
                      job.running, job.restart_factor,   job.current};
  }

  // `tables` holds the goodput tables; the caller keeps it from round to
  // round (begin_round() called for this round).
  Search(const PolluxParams& params, GoodputEstimator& estimator, const Cluster& cluster,
         Mt19937_64Blocks& rng, GoodputTables& tables);

  std::vector<Job> jobs;

  int max_nodes() const { return max_nodes_; }
  const std::vector<int>& capacity() const { return capacity_; }
  int max_gpus() const { return max_gpus_; }

  // The GPU type a row is priced and memory-checked as: the least-memory
  // type of its nodes (type 0, the first GPU's, on a homogeneous cluster).
  // MemoryBoundTypes::smaller() is the minimum in the order of (memory,
  // index), so folding it over the row's nodes gives the type of their
  // least rank in that order (node_rank_): an integer minimum per node
  // instead of two memory look-ups and a compare of doubles.
  int row_type(const Row& r) const {
    if (types_.count() == 1 || r.n == 0) return 0;  // a homogeneous cluster: no node to look at
    int rank = node_rank_[r.node[0]];
    for (int i = 1; i < r.n; ++i) rank = std::min<int>(rank, node_rank_[r.node[i]]);
    return type_of_rank_[static_cast<std::size_t>(rank)];
  }
  const std::string& type_name(int type) const { return types_.name(type); }

  // Speedup of job j on (nodes, gpus) of `type`: its goodput there, kept
  // in the goodput tables (pollux_goodput_tables.hpp), over its base goodput.
  // Safe from several lanes of evolve() at once: a cell is read atomically
  // (a plain load on x86) and an unknown one filled under a lock; a cell's
  // goodput is a function of its inputs, so which lane fills it first
  // changes nothing.
  double speedup(std::size_t j, int nodes, int gpus, int type = 0) {
    if (gpus == 0) return 0;
    Hot& hot = hot_[j];
    if (nodes > max_nodes_ || gpus > hot.max_gpus) return 0;
    const std::size_t cell =
        static_cast<std::size_t>(max_nodes_) * max_gpus_ * static_cast<std::size_t>(type) +
        static_cast<std::size_t>(nodes - 1) * max_gpus_ + (gpus - 1);
    double* const cells = std::atomic_ref<double*>(hot.cells).load(std::memory_order_acquire);
    double goodput =
        cells != nullptr ? std::atomic_ref<double>(cells[cell]).load(std::memory_order_relaxed) : -1;
    if (goodput < 0) goodput = fill_cell(j, cell, nodes, gpus, type);
    // As a float: the search's speedups always were, and decisions stay the same.
    return static_cast<float>(goodput / hot.base_goodput);
  }

  // After `jobs` is filled: each job's goodput table, kept from earlier
  // rounds where its key is the same.
  void prepare();
  // Before a search: each job's current_row() with its term (prepare()
  // leaves it unscored).
  void price_current_rows();
  // Job j's current row as price_current_rows() left it: with its term when
  // pricing leaves it as it is (a job that can use its GPUs; else the
  // unscored current row), so that mutation's "back to the current
  // allocation" and the seeds copy a priced row.
  const Row& current_row(std::size_t j) const { return current_rows_[j]; }

  // The generalised mean of the rows' speedups (restart factor included),
  // into ind.fitness. Only the rows not scored yet are priced.
  double fitness(Individual& ind);
  // Row r of job j's fitness term, priced if not scored yet.
  double scored_term(std::size_t j, Row& r) { return scored_term(lanes_[0], j, r); }
  // Rows fitness() has priced so far (the others reused their term). With
  // evolve() on several lanes, children that one lane would have left
  // unfinished may be finished: more rows, the same survivors.
  long rows_priced() const { return lanes_[0].priced; }
  long rows_scored() const { return lanes_[0].scored; }      // rows fitness() summed
  long rows_repaired() const { return lanes_[0].repaired; }  // rows repair() and breed() repaired
  // Row `r` of job j priced: its term, `scored` set; a row whose GPUs the
  // job cannot use is emptied first.
  void price(std::size_t j, Row& r) { price(lanes_[0], j, r); }

  // Into `child`, whose rows buffer is reused across generations.
  void crossover(const Individual& a, const Individual& b, Individual& child);

  // Per job row, as in the Pollux simulator: back to the current allocation
  // (p 0.1), sparser (p 0.1: each node dropped with p 0.1), or raised on one
  // node (p 0.1: a node it uses, or any node, to U[current, node size]).
  void mutate(Individual& ind);

  // Pollux's repair, in order: one distributed job per node; total GPUs and
  // nodes per job capped; node capacity, earlier jobs first.
  void repair(Individual& ind);

  // One child of a and b into `child`, as crossover(), mutate(), repair()
  // and fitness() one after the other leave it (the same draws, rows and
  // fitness, to the bit), in one pass over its rows instead of four: the
  // search's inner loop. `child` is neither a nor b. Returns its fitness.
  //
  // With a finite `must_beat` and p < 0 (every term positive, the fitness
  // falling as their sum grows), a child whose partial sum already gives a
  // fitness of at most `must_beat` is left there: the rest of its rows
  // only take their draws (the generator ends where the whole child leaves
  // it), its fitness is -infinity and its rows are not a valid child.
  // evolve() passes the population-th best fitness of the parents and the
  // children bred before this one: such a child would lose (mu + lambda)
  // survival, a tie included.
  double breed(const Individual& a, const Individual& b, Individual& child,
               double must_beat = -std::numeric_limits<double>::infinity());

  // What evolve() on several lanes does per child (use_workers()): the
  // calling thread keeps the draws breed() would take for a child of a and
  // b (its cut, then its rows') in `tape`, without building the child;
  // a lane breeds it from them: the same child and fitness, to the bit.
  // From a tape, a losing child stops reading where it is left.
  void record_child_draws(const Individual& a, const Individual& b, DrawTape& tape);
  double breed(DrawTape::Reader& draws, const Individual& a, const Individual& b, Individual& child,
               double must_beat = -std::numeric_limits<double>::infinity());

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
  // with the losers, some of them left unfinished by breed() (their rows
  // are buffers only). Returns the generations run; `pop` ends sorted,
  // best first.
  int evolve(std::vector<Individual>& pop, std::vector<Individual>& children);

  // evolve() breeds each generation's children on the lanes of `workers`
  // (PolluxPolicy keeps it from round to round) when the search has at
  // least `min_jobs` jobs: the same survivors, order, fitness and draws as
  // on one lane, for any number of lanes. Every draw stays on the calling
  // thread, in the one-lane order: it draws a child's parents, takes the
  // child's draws without its rows and keeps them on the child's tape
  // (record_child_draws), and goes on to the next child, while the other
  // lanes breed the children drawn so far from their tapes. A child is
  // left unfinished only when its partial fitness is below (not equal
  // to) the population-th best of the parents and the children finished
  // so far, whichever lane bred them: pop.size() others then beat it, ties
  // included, so it loses survival as on one lane.
  void use_workers(SearchWorkers* workers, std::size_t min_jobs) {
    workers_ = workers;
    parallel_min_jobs_ = min_jobs;
  }

 private:
  // What one lane of evolve() writes besides its children: the marks of
  // its repairs and its counts. Lane 0 is the calling thread's (and every
  // other function's); a cache line each, as lanes count at every row.
  struct NodeUse {
    std::uint32_t claimed_in;
    std::uint32_t used_in;
    int used;
    int capacity;
  };
  struct alignas(64) Lane {
    std::vector<NodeUse> node_use;
    std::uint32_t repair = 0;  // repairs run so far (wraps)
    long priced = 0;
    long scored = 0;
    long repaired = 0;
    // The last sum_past_which_lost() and its inputs: most children of a
    // generation share their parent's bar, so one pow() per bar instead
    // of per child (the same call on the same inputs: the same bits).
    double lost_for = std::numeric_limits<double>::quiet_NaN();
    std::size_t lost_for_jobs = 0;
    double lost_for_p = 0;
    double lost_from = std::numeric_limits<double>::infinity();
  };
  double scored_term(Lane& lane, std::size_t j, Row& r) {
    if (!r.scored) price(lane, j, r);
    return r.term;
  }
  void price(Lane& lane, std::size_t j, Row& r);
  // With a DrawTape::Reader, a losing child's remaining draws are not
  // taken: nothing reads the tape after it.
  template <class Rng>
  double breed(Lane& lane, Rng& rng, const Individual& a, const Individual& b, Individual& child,
               double must_beat);
  // The draws of rows [first, jobs.size()) of a child of a and b cut at
  // `cut` (the row's, then mutate_row()'s), none of its changes.
  template <class Rng>
  void take_row_draws(Rng& rng, const Individual& a, const Individual& b, std::size_t cut, std::size_t first);
  // One generation's children bred on the workers' lanes (use_workers()),
  // `best` as evolve() keeps it for the one-lane loop.
  void breed_on_lanes(const std::vector<Individual>& pop, std::vector<Individual>& children,
                      std::vector<double>& best);
  // The unknown speedup cell of job j, filled under fill_lock_.
  double fill_cell(std::size_t j, std::size_t cell, int nodes, int gpus, int type);
  // Mutation's draw u: back to the current row below kBackToCurrent; the row
  // is left as it is from kMutated on.
  // Its draws are compared as draw53() integers (below53()).
  static constexpr double kBackToCurrent = 0.1;
  static constexpr double kMutated = 0.3;
  static constexpr std::uint64_t kBackToCurrent53 = below53(kBackToCurrent);
  static constexpr std::uint64_t kSparser53 = below53(0.2);  // "sparser" below, "raise" from it
  static constexpr std::uint64_t kMutated53 = below53(kMutated);
  static constexpr std::uint64_t kDropNode53 = below53(0.1);  // "sparser" drops a node
  static constexpr std::uint64_t kSameSlot53 = below53(0.5);  // "raise" picks one of the row's nodes
  // mutate() on row r of job j, whose first draw is given (as draw53()).
  template <class Rng>
  void mutate_row(Rng& rng, std::size_t j, Row& r, std::uint64_t u53);
  // Starts a repair: no node claimed or used yet.
  static void begin_repair(Lane& lane);
  // repair() on row r of job j, after the rows before it. `within_caps`:
  // the row has at most max_nodes_ nodes and its job's max_gpus GPUs.
  void repair_row(Lane& lane, std::size_t j, Row& r, bool within_caps = false);
  // repair_row() on a row of no node or one: the search's most common rows,
  // in fewer steps.
  void repair_one_node_row(Lane& lane, std::size_t j, Row& r);
  // fitness() from the sum of its terms.
  double finish_fitness(Lane& lane, Individual& ind, double sum);
  // The fitness that a sum of the terms of all jobs gives.
  double fitness_of_sum(double sum) const;
  // The least partial sum of terms past which a child's fitness can no
  // longer exceed `must_beat` (infinity where none is known): breed()
  // then checks fitness_of_sum() from that sum on.
  double sum_past_which_lost(double must_beat) const;
  // sum_past_which_lost(), kept per lane for the last `must_beat`.
  double sum_past_which_lost(Lane& lane, double must_beat) const {
    if (!(must_beat == lane.lost_for) || lane.lost_for_jobs != jobs.size() || lane.lost_for_p != params_.p) {
      lane.lost_from = sum_past_which_lost(must_beat);
      lane.lost_for = must_beat;
      lane.lost_for_jobs = jobs.size();
      lane.lost_for_p = params_.p;
    }
    return lane.lost_from;
  }

  const PolluxParams& params_;
  GoodputEstimator& estimator_;
  const MemoryBoundTypes& types_;  // tables_.types()
  Mt19937_64Blocks& rng_;
  std::vector<int> capacity_;
  // Per lane (lanes_[0] the caller's): per node, what the lane's current
  // repair has put there: a multi-node job (claimed_in == repair) and GPUs
  // (used, when used_in == repair).
  std::vector<Lane> lanes_;
  SearchWorkers* workers_ = nullptr;
  std::size_t parallel_min_jobs_ = 0;
  // breed_on_lanes(): per child, its parents and its draws; the
  // population-th best fitness so far (`bar_`), which the heap of evolve()
  // under bar_lock_ keeps.
  std::vector<std::pair<const Individual*, const Individual*>> parents_;
  std::vector<DrawTape> tapes_;
  std::atomic<double> bar_{0};
  std::mutex bar_lock_;
  std::mutex fill_lock_;
  GoodputTables& tables_;
  // Per job, what every row operation reads of it, packed (set by
  // prepare()): a Job is hundreds of bytes, and with thousands of jobs the
  // search's passes over them missed the cache at each job.
  struct Hot {
    std::vector<double>* table;  // its goodput table in tables_
    double* cells;               // its data once allocated (speedup(), fill_cell())
    double base_goodput;
    double restart_factor;
    int max_gpus;
    int current_gpus;
    bool running;
  };
  std::vector<Hot> hot_;
  std::vector<Row> current_rows_;  // per job: current_row(), contiguous (mutation reads it)
  std::vector<Row> last_priced_;   // per job: the last row fitness() priced, `scored` if kept
  // Per node, the rank of its type in the order of MemoryBoundTypes::smaller()
  // (least memory first); per rank, its type (row_type()). Empty on a
  // homogeneous cluster.
  std::vector<int> node_rank_;
  std::vector<int> type_of_rank_;
  int max_nodes_ = 1;
  int max_gpus_ = 1;
};

}  // namespace vnsim::pollux
