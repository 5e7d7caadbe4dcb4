#pragma once
// Pollux (Qiao et al., OSDI'21; petuum/adaptdl osdi21-artifact
// simulator/pollux.py): co-adaptive scheduling on goodput.
// Every round (60 s) a genetic search looks for the allocation (GPUs per job
// per node) that maximises the generalised mean, with p = -1, of the jobs'
// speedups: speedup_j = goodput_j(allocation) / goodput_j(fair share), with
// the batch size and gradient-accumulation steps chosen per allocation to
// maximise goodput = throughput x statistical efficiency (core/goodput.hpp).
// A job whose GPUs change has its speedup multiplied by the restart factor
// max(T - R delta, 0) / (T + delta) (T = age, R = restarts so far). Jobs move
// by checkpoint-restart; a job that keeps its GPUs changes batch in place
// when that raises its goodput by batch_change_gain.
//
// Each job's progress is the policy's own estimate (its goodput integrated
// over time), so phi and thus the best batch follow training as in Pollux's
// agents; the engine's actual progress is not read.
#include <cstdint>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "vnsim/policies/goodput_estimator.hpp"
#include "vnsim/policies/mt19937_64_blocks.hpp"
#include "vnsim/policies/policy.hpp"

namespace vnsim {

namespace pollux {  // the genetic search (policies/src/pollux_search.hpp)
class Search;
class GoodputTables;
class SearchWorkers;
struct Individual;
struct Row;
}  // namespace pollux

struct PolluxParams {
  double interval_s = 60;  // scheduling round (simulator --interval)
  double restart_s = 30;   // delta of the restart factor (simulator rescale_time)
  double p = -1;           // generalised-mean exponent (fairness)
  int population = 100;
  int generations = 100;
  std::uint64_t seed = 0;
  int max_nodes_per_job = 16;
  int max_gpus_per_job = 64;
  double batch_change_gain = 0.05;  // in-place batch change only above this goodput gain
  // Cap on population x generations x jobs per round: above it the round
  // runs fewer generations (at least min_generations), so large clusters
  // stay well under a second per decision (docs/POLICIES.md).
  double max_row_evaluations = 2e6;
  // The fewest generations a round capped by max_row_evaluations runs.
  // Each round's search starts from the last round's final population, as
  // Pollux's does (petuum/adaptdl simulator/pollux.py, _adapt_prev_states),
  // so a round's few generations continue the last round's: with thousands
  // of queued jobs a floor of 10 cost 10 x population x jobs rows every
  // round (docs/POLICIES.md, "Scaling").
  int min_generations = 1;
  // > 0: a round's search stops after this many generations in a row
  // without a better best allocation. 0 runs every generation, as Pollux
  // does (docs/POLICIES.md, "Scaling": the default 10 keeps the mean JCT of
  // Pollux workload-6 within 0.5% at a quarter of the search cost).
  int patience = 10;
  // Seed each round's search with the greedy allocation of pollux_climb.hpp
  // (docs/POLICIES.md, "Scaling"). false: Pollux's own seeds only.
  bool greedy_seed = true;
  // false: every job keeps its own (trace) global batch, with the fewest
  // accumulation steps that fit memory, and the search maximises the
  // speedups of that fixed batch ("Pollux without adaptive batch", the
  // AdaptDL comparison; docs/POLICIES.md).
  bool adaptive_batch = true;
  // > 0: a job gets at most max(1, growth_limit x the most GPUs it has run
  // on), as the Pollux simulator only lets a job reach twice the replicas
  // its throughput was profiled on (2 there; it starts every job on one
  // GPU). 0: any count its batch range allows (vnsim's perf model knows
  // every configuration from the start).
  double growth_limit = 0;
  // > 0: a round in which nothing changed since the last search (the same
  // jobs, each on the GPUs that search gave it) reuses that search's
  // allocation instead of searching again, for at most this many rounds in
  // a row; the batch is still re-chosen per job. 0: search every round, as
  // Pollux does (docs/POLICIES.md, "Scaling").
  int max_skipped_rounds = 10;
  // >= 1: when a search due after max_skipped_rounds, on the same inputs
  // as the last one, decides nothing (it keeps every job where it is), the
  // rounds reused before the next search are multiplied by this factor, up
  // to max_quiet_rounds; any change (a job arrives, ends or moves, a search
  // that moves something) brings them back to max_skipped_rounds. 1: a
  // search every max_skipped_rounds + 1 rounds however long nothing
  // changes (docs/POLICIES.md, "Scaling").
  double quiet_backoff = 4;
  // A search's best allocation replaces the current one only when its
  // objective is higher by more than this fraction: ties within rounding
  // keep the jobs where they are. 0: any higher value wins.
  double tie_tolerance = 1e-9;
  int max_quiet_rounds = 10080;  // a week of 60-s rounds
  // true: a round that would only reuse the standing allocation (above)
  // and decide nothing is not run at all. After such a round the policy
  // sleeps through the next rounds that must do the same: until a search
  // is due (max_skipped_rounds), a job's goodput can change (its progress
  // reaches the next epoch of its noise profile), or anything else calls
  // decide() (an arrival, an end, a move), whichever comes first. The same
  // decisions as running every round (docs/POLICIES.md, "Scaling").
  bool sleep_quiet_rounds = true;
  // Threads that breed a search's children (the caller's included), at
  // most the machine's hardware threads: the same decisions for any
  // number (docs/POLICIES.md, "Scaling"). 1: the caller's thread only.
  int search_threads = 2;
  // Searches of fewer jobs breed on one thread: below this the hand-off
  // between threads costs more than a child. With a free second core,
  // searches of 8 to 63 jobs gain from the second lane too
  // (docs/PERFORMANCE_HISTORY.md, "Pollux on the heavy trace at load 0.8
  // (thirteenth pass)").
  int search_threads_min_jobs = 8;
};

class PolluxPolicy : public Policy {
 public:
  explicit PolluxPolicy(PolluxParams params = {});
  ~PolluxPolicy() override;  // out of line: pollux::Row is complete only there
  std::string name() const override { return "pollux"; }
  std::vector<Decision> decide(const SchedulerInput& input) override;
  std::optional<double> next_timer_s(double now_s) const override;
  void use_noise_profiles(const NoiseScaleCatalog& noise) override { estimator_.use_noise_profiles(noise); }

  // What the last round decided (for tests): GPUs and batch per job.
  struct Chosen {
    int gpus = 0;
    int nodes = 0;
    BatchChoice batch;
  };
  const std::map<JobIndex, Chosen>& last_round() const { return last_round_; }
  int last_generations() const { return last_generations_; }
  // Rounds that ran the genetic search (the others reused the last one).
  long searches() const { return searches_; }
  // Rounds that decide() ran, and rounds it did not need to run at all: a
  // round that would only reuse the standing allocation and decide nothing
  // (nothing changed and no job's goodput can have changed: see
  // skip_quiet_rounds) is not run; its effects are applied at the next one.
  long rounds_run() const { return rounds_run_; }
  // Rows the searches priced, and rows they scored (priced or with the
  // term a parent's row carried): a child prices only what mutation and
  // repair changed.
  long rows_priced() const { return rows_priced_; }
  long rows_scored() const { return rows_scored_; }
  long rows_repaired() const { return rows_repaired_; }  // by the searches' repair (set-up and children)
  long rounds_slept() const { return rounds_slept_; }
  const GoodputEstimator& estimator() const { return estimator_; }
  // Estimated progress of a job (scale-invariant iterations).
  double progress_of(JobIndex job) const { return job < memos_.size() ? memos_[job].progress : 0; }

 private:
  struct Memo {
    bool seen = false;
    double progress = 0;
    double rate = 0;  // progress units per second in its current allocation
    double last_update_s = 0;
    double no_progress_until_s = 0;  // restart in progress
    int restarts = 0;
    int batch = 0;  // 0 until Pollux sets it (the spec's)
    int vn_per_gpu = 1;
    double iteration_s = 0;
    int most_gpus = 0;  // the most GPUs it has run on (growth_limit)
  };
  Memo& memo(JobIndex job);
  // The round's jobs in GA order (least attained service first), with their
  // base goodput, restart factor and GPU cap.
  void add_search_jobs(const SchedulerInput& input, pollux::Search& search, double now);
  bool unchanged_since_last_search(const pollux::Search& search) const;
  // After a round that reused the standing allocation and decided nothing:
  // how many of the next rounds would do the same (see the .cpp).
  int quiet_rounds_ahead(const SchedulerInput& input, double now) const;
  // Rounds slept through until `now` (an event or the wake-up), as if run.
  bool wake_up(double now);
  std::vector<Decision> targets_for(const SchedulerInput& input, const pollux::Search& search,
                                    const pollux::Individual& best);

  PolluxParams params_;
  GoodputEstimator estimator_;
  Mt19937_64Blocks rng_;  // the std::mt19937_64 sequence
  std::vector<Memo> memos_;
  std::vector<char> runnable_;  // by job index: known to be a data-parallel job it can price
  // Last round's final population, to seed the next search (flat rows:
  // maps per individual dominated large rounds).
  struct Population;
  std::shared_ptr<Population> previous_;
  // Buffers kept from round to round so that a round's search allocates
  // nothing once they have grown: row vectors of finished individuals.
  std::vector<pollux::Row> recycled_rows();
  void recycle(std::vector<pollux::Row>&& rows);
  std::vector<std::vector<pollux::Row>> spare_rows_;
  // The search's goodput tables, kept from round to round
  // (pollux_goodput_tables.hpp).
  std::unique_ptr<pollux::GoodputTables> goodput_tables_;
  // The threads of search_threads, started at the first search that uses
  // them and kept until the policy ends.
  std::unique_ptr<pollux::SearchWorkers> workers_;
  std::map<JobIndex, Chosen> last_round_;
  int last_generations_ = 0;
  long searches_ = 0;
  int skipped_in_a_row_ = 0;
  int reuse_limit_ = 0;  // rounds to reuse before the next search (quiet_backoff)
  double next_round_s_ = -std::numeric_limits<double>::infinity();
  // Sleeping through quiet rounds: the round grid goes on at grid_next_s_
  // (every interval_s from the last round run), next_round_s_ is the wake-up.
  bool asleep_ = false;
  double grid_next_s_ = 0;
  long rounds_run_ = 0;
  long rounds_slept_ = 0;
  long rows_priced_ = 0;
  long rows_scored_ = 0;
  long rows_repaired_ = 0;
};

}  // namespace vnsim
